//! multise raced against dse ([`Fallback::race_after`]).
//!
//! multise runs alone for the head start; then a dse exploration from the
//! start runs beside it: on a thread of its own where the machine has a
//! second core ([`Fallback::threads`], `dse/second.rs`;
//! [`Multise::thread_turn`]), each side ending the run when it finishes,
//! or else in turns with it on the same thread. The turns change at
//! multise's step boundaries: merging's turn lasts while its time, the
//! head start included, is at most dse's ([`MERGING_SHARE`]); dse's runs
//! slices until that holds again, so dse's first turn makes up the head
//! start. Whichever finishes first ends the run: where dse does, the run
//! took at most twice dse's own time (the bound), plus a step's
//! overrun, once dse's time is at least the head start (below that, the
//! head start and dse's time); where merging does past the head start,
//! about twice merging's. (The head start used to be merging's own and
//! merging's share twice dse's: a solver-bound merge that did not pay, a
//! khash harness with three operations, took 6.8 s against dse's 2.1.)
//!
//! A step is merging's to finish, and one BDD operation on guards as large
//! as the paths they stand for can take seconds (Heap Sort): once a step
//! runs past its turn (the head start is its first) by [`Fallback::overrun`]
//! or [`OVERRUN_SHARE`] of merging's time, whichever is more,
//! the operation (or the solver call, cut there) unwinds and merging is
//! given up (as it is when its heap outgrows dse's and the
//! memory in use before both, the rule of ssm's and dsm's race). dse then
//! goes on alone, its progress kept. A loop-head merge past its turn (its
//! time is its solver's questions) unrolls that loop instead and merging
//! goes on: the state is as before the merge, and dse's next turn makes
//! up the overrun, so the bound above holds with one step's overrun, not
//! one per loop head.

use super::{Fallback, Multise};
use crate::dse::merging::{footprint, heap_outgrown, heap_over, outgrown_reason};
use crate::dse::second::Second;
use crate::dse::Rival;
use crate::record::Recorder;
use crate::results::RaceStats;
use braid_guard::GiveUp;
use std::time::{Duration, Instant};

/// Merging's time in the race as a share of dse's: equal turns, the most
/// that keeps a run where dse finishes first within twice dse's time.
/// multise's wins on bench/multise, bench/containers and examples/c finish
/// within the head start; bench/merging's sleep-5-3 and sleep-6-3, past it,
/// take about twice merging's time. Half of dse's while BDD operations took
/// three quarters of merging's time, as until the forty-second session,
/// made jsmn's tokenizer over 8 bytes, which merging wins at 80 % in BDD
/// operations, take 15.0-16.6 s and 535-544 MB (now 10.0-10.8 s and 340-349 MB);
/// sorting's merges, for which it was made, are given up at 500 ms
/// ([`super::FALLBACK`]'s share of BDD time) before the race begins.
pub const MERGING_SHARE: f64 = 1.0;

/// A step may run past its turn by this share of merging's time so far
/// when that is more than [`Fallback::overrun`]: merging's solver calls
/// grow with its states. A version-string parser (semver.c, scratch
/// harness, every byte symbolic) over 4 bytes, which merging alone
/// finishes in 12 s and dse does not in 60, had merging given up at
/// 4.7-12.8 s by a step that ran 505-601 ms past its turn (a Z3 call cut
/// there, in the run whose slowest call was looked at) wherever the
/// BDD-share rule had not given it up first.
/// The bound where dse finishes first becomes twice dse's time and an
/// eighth of it.
pub const OVERRUN_SHARE: f64 = 0.125;

/// How many times [`Fallback::overrun`] a step of merging may take, in a
/// race on a thread, before merging is given up (2 s by default): dse
/// explores on its own core meanwhile, so a long step costs the run only
/// the time ssm beside dse would have had (`Multise::merge_beside`).
/// json-parser/json-parser over 6 symbolic bytes (scratch harness), which
/// multise alone finishes in 11 s and dse does not in 30, had merging
/// given up at 1.8 s by a guard sent whole to Z3 that took 581 ms (500
/// allowed).
const THREAD_OVERRUN: u32 = 4;

/// The heap merging may grow by, in a race on a thread, before the memory
/// rule looks ([`Race::outgrown_on_thread`]). Below it the process's
/// memory outside the heap (a Z3 context takes 17 MB, and a race runs two;
/// the allocators' arenas) sets both runs' peaks, and the heaps do not
/// predict them: on bench/merging's sleep-5-3 merging's 27 MB against dse's
/// 4 MB and 9 MB before both gave merging up at 2.3 s, and the run took
/// 4.8-6.4 s instead of 3.5 with the same peak (148-150 MB, reached while
/// merging ran alone).
const THREAD_HEAP_FLOOR: i64 = 64 << 20;

/// The heap merging may grow by in a race on a thread before the memory
/// rule looks, under a memory limit of `limit_mb`: [`THREAD_HEAP_FLOOR`],
/// or a sixteenth of the limit where that is more. dse's heap early in a
/// run says little of its peak: on yxml's XML tokenizer over 6 and 7
/// symbolic bytes (scratch harness) dse held 20 MB at 2.5 s and grows
/// past 500 MB without finishing in 20 s, while merging, given up then at
/// 95-125 MB, finishes in 4.9 and 15.4 s beside it. The limit bounds
/// what a merge that does not pay may hold besides dse (utf8.h's decoder
/// over 3 bytes: 181-322 MB against 167 with the floor alone, dse alone
/// 96).
fn heap_floor(limit_mb: Option<u64>) -> i64 {
    let limit = limit_mb.map_or(0, |mb| (mb as i64) << 20);
    THREAD_HEAP_FLOOR.max(limit / 16)
}

/// How long merging's heap must stay past the memory rule's bound, on a
/// thread, before merging is given up ([`Race::outgrown_on_thread`]): its
/// heap is a sawtooth (the BDD's collections free most nodes, each
/// growing the table again), and a tooth's top is not what it keeps.
/// benhoyt/inih over 11 symbolic bytes (scratch harness): merging's heap
/// swings between 30 and 78 MB while dse's grows from 21 MB at 1 s to 1
/// GB at 30 s; a tooth at 64 MB against dse's 59-70 gave merging up at
/// 3.6-3.8 s in each of three runs, and dse did not finish in 60 s (2.2
/// GB); now merging wins in 23-24 s (alone it takes about 20).
const HEAP_HELD: Duration = Duration::from_millis(500);

/// Whether a condition true (`over`) at `now` has been true at every look
/// for [`HEAP_HELD`] (`since`: when it last became true).
fn held(over: bool, since: &mut Option<Instant>, now: Instant) -> bool {
    if !over {
        *since = None;
        return false;
    }
    now.duration_since(*since.get_or_insert(now)) >= HEAP_HELD
}

/// How far a step may run past a turn that starts after `merging` of
/// merging's time: `least`, or [`OVERRUN_SHARE`] of that time.
fn allowed_overrun(least: Duration, merging: Duration) -> Duration {
    least.max(merging.mul_f64(OVERRUN_SHARE))
}

pub(super) struct Race<'m> {
    after: Duration,
    /// The least overrun ([`Fallback::overrun`]), and the one of the turn
    /// under way ([`OVERRUN_SHARE`]).
    overrun: Duration,
    turn_overrun: Duration,
    /// dse, once the head start is spent.
    pub(super) rival: Option<Rival<'m>>,
    /// Or dse on a thread of its own ([`Fallback::threads`]), made idle
    /// with the race and started when the head start is spent.
    pub(super) second: Option<Second>,
    /// The time dse's turns took.
    dse_time: Duration,
    /// The heap growth over dse's turns (on a thread: the most dse's heap
    /// has grown to, [`Race::outgrown_on_thread`]), this thread's live heap
    /// bytes when the run began, and the resident memory then.
    dse_heap: i64,
    pub(super) heap_start: i64,
    /// What dse's thread had handed to this one when the race began
    /// ([`Second::handed`]; a dse under way, [`super::again_beside`]).
    handed_start: i64,
    pub(super) base: i64,
    /// dse finished first.
    pub(super) dse_won: bool,
    /// Why merging was given up at a turn's end (memory).
    pub(super) given_up: Option<String>,
    /// When merging's turn under way ends (its deadline less the overrun).
    turn_end: Option<Instant>,
    /// Since when merging's heap has been past the memory rule's bound
    /// without a break ([`HEAP_HELD`]).
    over_since: Option<Instant>,
    /// The heap merging may grow by before the memory rule looks
    /// ([`heap_floor`]).
    floor: i64,
}

impl Race<'_> {
    /// The memory rule of a race on a thread: once dse has run as long as
    /// the head start, merging is given up when its growth of the heap
    /// since the run began outgrows [`HEAP_SHARE`] of the most dse's has
    /// grown to and the memory in use before both, once past
    /// [`heap_floor`], at every look for [`HEAP_HELD`]. Both alive
    /// then hold more than dse alone would at its peak, which is at least
    /// that. (What dse's tests take
    /// to this thread and are freed here counts on dse's side,
    /// [`Second::handed`].)
    fn outgrown_on_thread(&mut self, merging: Duration) -> Option<String> {
        let second = self.second.as_ref()?;
        // `dse_heap` is dse's peak so far on the thread.
        self.dse_heap = self.dse_heap.max(second.heap());
        if second.time() < self.after {
            return None;
        }
        let merging_heap = footprint() - self.heap_start + second.handed() - self.handed_start;
        let over = merging_heap >= self.floor && heap_over(merging_heap, self.dse_heap, self.base);
        held(over, &mut self.over_since, Instant::now())
            .then(|| outgrown_reason(merging_heap, merging, self.dse_heap, self.base))
    }

    /// Whether dse has started, in turns or on its thread.
    pub(super) fn joined(&self) -> bool {
        self.rival.is_some() || self.second.as_ref().is_some_and(|s| s.started())
    }

    /// The race's statistics, merging having run `merging` (`winner`:
    /// `merging`, `dse` or `None`).
    pub(super) fn stats(&self, merging: Duration, winner: Option<&str>) -> RaceStats {
        let (dse_time, dse_paths) = match (&self.rival, &self.second) {
            (_, Some(s)) => (s.time(), s.paths()),
            (r, None) => (self.dse_time, r.as_ref().map_or(0, |r| r.paths())),
        };
        RaceStats {
            after_ms: self.after.as_millis() as u64,
            merging_ms: merging.as_millis() as u64,
            dse_ms: dse_time.as_millis() as u64,
            dse_paths,
            winner: winner.map(str::to_string),
        }
    }
}

impl<'m> Multise<'m> {
    /// Sets up the give-up of `fallback` (and its race) for a run starting
    /// now.
    pub(super) fn start_race<'scope>(&mut self, fallback: Fallback, scope: &'scope std::thread::Scope<'scope, '_>)
    where
        'm: 'scope,
    {
        // BDD operations' share is of the exploration's time: a C program
        // compiled and loaded took 250 ms of a run before the first one
        // (swenson/sort's heap sort of 7 ints under a scratch harness); its
        // share of exploring was 97 % at 500 ms, of the run under 80 %.
        self.explore_start = std::time::Instant::now();
        let (second, base) = match self.beside.take() {
            Some((second, base)) => (Some(second), base),
            None => (
                (fallback.race_after.is_some() && fallback.threads && crate::dse::second::possible())
                    .then(|| Second::spawn(scope, self.module, self.entry, &self.budget).ok())
                    .flatten(),
                braid_budget::memory_use().map_or(0, |(rss, _)| rss as i64),
            ),
        };
        self.race_beside(fallback, second, base, self.explore_start);
    }

    /// [`Multise::start_race`] with dse's thread `second` (idle, or under
    /// way), if the machine has a second core, and `base` the memory in use
    /// before merging explored. Where the BDD share can give merging up
    /// before dse's thread starts, it is looked at between steps, where
    /// merging pauses for ssm beside dse rather than starting again
    /// ([`Multise::pause_for_ssm`]); inside a step, only once it has been
    /// due for [`Fallback::share_grace`]. The head start counts from `start`.
    pub(super) fn race_beside(&mut self, fallback: Fallback, second: Option<Second>, base: i64, start: Instant) {
        // The head start is merging's own turn: a step past it by the
        // overrun gives merging up as past any turn. (With no deadline
        // there, one solver call of a 12-line list harness took the
        // solver's timeout, 6 s, and the run 9.1 s where dse takes 3.2.)
        let head_end = fallback.race_after.map(|after| start + after + fallback.overrun);
        let pauses = second.as_ref().is_some_and(|s| !s.started()) && fallback.bdd_share.is_some();
        self.guards.set_give_up(Some(GiveUp {
            deadline: head_end,
            share: fallback.bdd_share.map(|(after, share)| (start, after, share)),
            share_grace: fallback.share_grace.filter(|_| pauses).unwrap_or_default(),
        }));
        let Some(after) = fallback.race_after else {
            return;
        };
        self.cut_solver_at(head_end);
        if let Some(s) = second.as_ref().filter(|s| s.started()) {
            let budget = s.merging_budget().clone();
            self.guards.set_budget(&budget);
            self.solver.set_budget(&budget);
        }
        let handed_start = second.as_ref().map_or(0, |s| s.handed());
        self.race = Some(Race {
            after,
            overrun: fallback.overrun,
            turn_overrun: fallback.overrun,
            rival: None,
            second,
            dse_time: Duration::ZERO,
            dse_heap: 0,
            heap_start: footprint(),
            handed_start,
            base,
            dse_won: false,
            given_up: None,
            turn_end: Some(start + after),
            over_since: None,
            floor: heap_floor(self.budget.limits().memory_mb),
        });
    }

    /// Merging's time so far (the run's, less dse's turns).
    pub(super) fn merging_time(&self, race: &Race) -> Duration {
        self.budget.elapsed().saturating_sub(race.dse_time)
    }

    /// At a step boundary: dse's turn if merging has had its share. Unwinds
    /// (as a budget stop does) when dse finishes, or when merging is given
    /// up. `live`: merging's `pc` entries, for the progress line.
    pub(super) fn race_turn(&mut self, rec: &mut Recorder, live: usize) {
        let Some(mut race) = self.race.take() else {
            return;
        };
        let merging = self.merging_time(&race);
        // After the head start, dse makes it up first: the turns share the
        // whole run.
        // (A loop-head merge past its turn forgave its deadline: merging is
        // past its share then, and dse's turn below sets the next one.)
        if race.second.is_some() {
            self.thread_turn(race, rec);
            return;
        }
        if merging < race.after || merging <= race.dse_time.mul_f64(MERGING_SHARE) {
            self.race = Some(race);
            return;
        }
        if race.rival.is_none() {
            let config = self.config.clone();
            match Rival::start(self.module, self.entry, &self.program, config, &self.budget, rec) {
                Ok(r) => race.rival = Some(r),
                // dse cannot start where multise did: no race.
                Err(_) => {
                    self.guards.set_deadline(None);
                    self.cut_solver_at(None);
                    return;
                }
            }
        }
        let rival = race.rival.as_mut().expect("started above");
        let peer = (self.result.paths, live);
        loop {
            let (t, heap) = (Instant::now(), footprint());
            let more = rival.slice(rec, peer);
            race.dse_time += t.elapsed();
            race.dse_heap += footprint() - heap;
            if !more {
                race.dse_won = true;
                self.race = Some(race);
                braid_budget::unwind();
            }
            // Memory is compared once dse has run as long as merging after
            // its head start too: at equal times, right after dse has made
            // up the head start, merging held what the head start grew
            // (bench/merging's sleep-5-3: 23 MB against dse's 12 at 1.2 s,
            // where dse alone peaks at 112 MB and multise at 87).
            let merging_heap = footprint() - race.heap_start - race.dse_heap;
            let compared = merging + race.after;
            let outgrown = heap_outgrown((merging_heap, compared), (race.dse_heap, race.dse_time), race.base);
            if outgrown.is_some() {
                race.given_up = outgrown;
                self.race = Some(race);
                braid_budget::unwind();
            }
            if self.budget.stopped() || merging <= race.dse_time.mul_f64(MERGING_SHARE) {
                break;
            }
        }
        // Merging's turn: what its share allows, and the overrun.
        let turn = race.dse_time.mul_f64(MERGING_SHARE).saturating_sub(merging);
        self.begin_turn(race, Instant::now() + turn, merging);
    }

    /// Merging's turn until `turn_end`, a step past it by the overrun
    /// allowed at `merging` of merging's time giving merging up; `race`
    /// goes back in place.
    fn begin_turn(&mut self, mut race: Race<'m>, turn_end: Instant, merging: Duration) {
        race.turn_end = Some(turn_end);
        // On a thread of its own dse goes on while merging's step runs.
        let least = match race.second {
            Some(_) => race.overrun * THREAD_OVERRUN,
            None => race.overrun,
        };
        race.turn_overrun = allowed_overrun(least, merging);
        let deadline = turn_end + race.turn_overrun;
        self.guards.set_deadline(Some(deadline));
        // A solver call is cut there too (it answers unknown, and merging
        // is given up as for a BDD operation past it): a call left to run
        // took up to the solver's timeout past the turn.
        self.cut_solver_at(Some(deadline));
        self.race = Some(race);
    }

    /// [`Multise::race_turn`] with dse on a thread of its own: started
    /// once the head start is spent; its tests handed on; merging given
    /// up when dse has finished, when a step runs past the overrun it
    /// is allowed (no turns: from the step's start), or when merging's
    /// heap outgrows the most dse's has held ([`Race::outgrown_on_thread`]).
    /// The turns' rule at equal times (dse's heap against merging's when
    /// it had run as long) gave up merging on tidwall/btree.c over 5
    /// operations at 2 s (21 MB against dse's 8 MB and 16 MB before both),
    /// where merging finishes first at 10 s (at 308 MB) and dse takes 25 s;
    /// against dse's most, and only once dse has run the head start, the
    /// rule waits for dse's heap to grow. Until the fifty-fifth session no
    /// rule held here: tinycbor's parser and validator over 3 bytes
    /// (scratch harness) peaked at 325-366 MB where dse alone peaks at 111
    /// MB; now merging is given up at 7.2 s and the run peaks at 250 MB, in
    /// the same time. Merging's memory is also bounded by the run's limit
    /// ([`braid_guard::GIVE_UP_MEMORY`]).
    fn thread_turn(&mut self, mut race: Race<'m>, rec: &mut Recorder) {
        let merging = self.merging_time(&race);
        let second = race.second.as_mut().expect("a race on a thread");
        if !second.started() {
            if merging < race.after {
                self.race = Some(race);
                return;
            }
            second.start(
                self.config.clone(),
                &self.program,
                rec.run_args().to_vec(),
                &self.budget,
            );
            rec.keep_distinct_paths();
            let budget = second.merging_budget().clone();
            self.guards.set_budget(&budget);
            self.solver.set_budget(&budget);
            // dse on its thread bounds the run's time from here: the BDD
            // share no longer gives merging up (it gave a C parser up that
            // merging wins, where compiling and loading took the head start
            // past the share's half second; `super::again_beside`).
            self.guards.drop_share();
        }
        second.take_tests(rec);
        if second.failed() {
            // dse cannot start where multise did: no race.
            race.second = None;
            self.guards.set_budget(&self.budget.clone());
            self.solver.set_budget(&self.budget.clone());
            self.guards.set_deadline(None);
            self.cut_solver_at(None);
            self.race = Some(race);
            return;
        }
        if second.finished() {
            race.dse_won = true;
            self.race = Some(race);
            braid_budget::unwind();
        }
        if let Some(why) = race.outgrown_on_thread(merging) {
            race.given_up = Some(why);
            self.race = Some(race);
            braid_budget::unwind();
        }
        // No turns: each step's own start.
        self.begin_turn(race, Instant::now(), merging);
    }

    /// No solver call of merging's runs past `deadline` (`None`: past the
    /// run's exploration only).
    pub(super) fn cut_solver_at(&mut self, deadline: Option<Instant>) {
        let explore = self.budget.explore_deadline();
        let d = match (deadline, explore) {
            (Some(d), Some(e)) => Some(d.min(e)),
            (d, e) => d.or(e),
        };
        self.solver.set_deadline(d);
    }

    /// Why a step of merging's gave it up ([`Fallback::overrun`]).
    pub(super) fn overrun_reason(&self, race: &Race) -> String {
        let past = race.turn_end.map_or(race.turn_overrun, |t| t.elapsed());
        let then = if race.joined() {
            "dse goes on alone"
        } else {
            "dse explores from the start"
        };
        format!(
            "a step of merging ran {} ms past its turn ({} allowed) at {} ms of merging, {} of them in BDD operations; {then}",
            past.as_millis(),
            race.turn_overrun.as_millis(),
            self.merging_time(race).as_millis(),
            self.guards.time_spent().as_millis()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The memory rule gives merging up only once merging's heap has stayed
    /// past its bound for [`HEAP_HELD`]: a tooth of the sawtooth does not.
    #[test]
    fn the_memory_rule_waits_for_the_heap_to_stay_over() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut since = None;
        assert!(!held(true, &mut since, t0));
        assert!(!held(true, &mut since, t0 + ms(300)));
        // Back under the bound: the wait starts again.
        assert!(!held(false, &mut since, t0 + ms(400)));
        assert!(!held(true, &mut since, t0 + ms(600)));
        assert!(!held(true, &mut since, t0 + ms(1000)));
        assert!(held(true, &mut since, t0 + ms(1100)));
    }

    /// The least overrun holds early; later a step may overrun by an
    /// eighth of merging's time (a solver call on the larger states).
    #[test]
    fn the_overrun_allowed_grows_with_merging() {
        let ms = Duration::from_millis;
        assert_eq!(allowed_overrun(ms(500), ms(1000)), ms(500));
        assert_eq!(allowed_overrun(ms(500), ms(4000)), ms(500));
        assert_eq!(allowed_overrun(ms(500), ms(8000)), ms(1000));
        assert_eq!(allowed_overrun(ms(500), ms(20_000)), ms(2500));
    }
}

//! Searchers: which state the forking engine runs next. Small objects over
//! state ids, so a merging searcher can later wrap any of them.

use crate::config::SearchKind;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

pub type StateId = u64;

/// What a searcher may look at to choose.
pub trait StateInfo {
    /// Statements executed since this state last covered a new branch.
    fn steps_since_cover(&self, id: StateId) -> u64;
}

pub trait Searcher {
    /// Takes the next state to run off the frontier.
    fn select(&mut self, info: &dyn StateInfo) -> Option<StateId>;
    /// Reports the states that `parent` became after running (none if it
    /// ended); `parent` is `None` for the initial state.
    fn update(&mut self, parent: Option<StateId>, children: &[StateId]);
}

pub fn make_searcher(kind: SearchKind, seed: u64) -> Box<dyn Searcher> {
    make(kind, seed, false)
}

/// dsm's driver of `kind`: as [`make_searcher`]'s, except that in
/// `interleaved` and `auto` dfs goes on from the newest state, random-path's
/// forks included (KLEE's order), so the states random-path reaches move on
/// together and meet to merge. With dfs down its own path, dsm alone on
/// bench/multise's Heap Sort took 177 s against 5.9.
pub fn make_driver(kind: SearchKind, seed: u64) -> Box<dyn Searcher> {
    make(kind, seed, true)
}

/// The searcher of `kind`; `newest`: interleaved dfs goes on from the
/// newest state ([`make_driver`]).
fn make(kind: SearchKind, seed: u64, newest: bool) -> Box<dyn Searcher> {
    match kind {
        SearchKind::Dfs => Box::new(Dfs::default()),
        SearchKind::Bfs => Box::new(Bfs(VecDeque::new())),
        SearchKind::RandomPath => Box::new(RandomPath::new(seed)),
        SearchKind::CovNew => Box::new(CovNew::new(seed)),
        SearchKind::Interleaved => Box::new(Interleaved::new(seed, None, newest)),
        SearchKind::Auto => Box::new(Interleaved::new(seed, Some(Instant::now() + AUTO_DFS), newest)),
    }
}

/// How long the `auto` searcher runs dfs alone. Programs explored whole in
/// that time are in dfs's order, the cheapest for loop-head merging: in
/// random-path's, bench/multise's Calc Parser split states at shallow loop
/// heads, and took 14 s and 74 865 paths where dfs takes 1.6 s and 9 237.
/// Past it, random-path's turns reach the shallow branches dfs leaves
/// behind a deep subtree (picohttpparser's request parser over 24 symbolic
/// bytes, 10 s: 79 branches under dfs, 171 interleaved).
pub const AUTO_DFS: Duration = Duration::from_secs(2);

/// Searchers taking turns over the same states (random-path, covnew and
/// dfs): each is told of every state; a state one of them chose is skipped
/// when the others choose it later. random-path reaches the shallow
/// branches dfs leaves behind a deep subtree, covnew the states that
/// covered something last (KLEE's default pairs these two: on yxml's
/// tokenizer over 10 symbolic bytes, 10 s, dse covered 520 branches under
/// covnew against 252 under random-path and dfs), and dfs finishes paths.
/// dfs goes on down its own path: the states the others' choices become
/// go under dfs's stack, not on top (on top, dfs started again at every
/// shallow fork random-path made, and finished no path where paths are
/// long: atomicobject/heatshrink's decoder over 3 symbolic bytes, 6 s, 153
/// paths against dfs's 23 808 and 110 262 live states).
struct Interleaved {
    random: Box<dyn Searcher>,
    covnew: CovNew,
    dfs: Dfs,
    /// The parts taking turns ([`ALL`], or [`DRIVER`] in dsm's driver),
    /// and the index of the one whose turn it is.
    parts: &'static [usize],
    turn: usize,
    /// The last state chosen, and by which part.
    chosen: Option<(StateId, usize)>,
    /// States chosen by one part, with how many others still hold them.
    taken: rustc_hash::FxHashMap<StateId, u8>,
    /// Until then, dfs alone chooses.
    dfs_until: Option<Instant>,
    /// dfs goes on from the newest state, the others' forks included
    /// ([`make_driver`]).
    newest: bool,
}

/// The parts of [`Interleaved`].
const RANDOM: usize = 0;
const COVNEW: usize = 1;
const DFS: usize = 2;
const ALL: [usize; 3] = [RANDOM, COVNEW, DFS];
/// dsm's driver's: with covnew, dsm alone on bench/multise's Heap Sort took
/// 54 s against 16.9.
const DRIVER: [usize; 2] = [RANDOM, DFS];

impl Interleaved {
    fn new(seed: u64, dfs_until: Option<Instant>, newest: bool) -> Interleaved {
        Interleaved {
            random: make_searcher(SearchKind::RandomPath, seed),
            covnew: CovNew::new(seed),
            dfs: Dfs::default(),
            parts: if newest { &DRIVER } else { &ALL },
            turn: 0,
            chosen: None,
            taken: Default::default(),
            dfs_until,
            newest,
        }
    }
}

impl Searcher for Interleaved {
    fn select(&mut self, info: &dyn StateInfo) -> Option<StateId> {
        let n = self.parts.len();
        self.turn = match self.dfs_until {
            // dfs is the last part.
            Some(t) if Instant::now() < t => n - 1,
            _ => (self.turn + 1) % n,
        };
        for k in 0..n {
            let part = self.parts[(self.turn + k) % n];
            loop {
                let next = match part {
                    RANDOM => self.random.select(info),
                    COVNEW => self.covnew.select(info),
                    _ => self.dfs.select(info),
                };
                let Some(id) = next else { break };
                match self.taken.get_mut(&id) {
                    Some(left) => {
                        *left -= 1;
                        if *left == 0 {
                            self.taken.remove(&id);
                        }
                    }
                    None => {
                        self.taken.insert(id, n as u8 - 1);
                        self.chosen = Some((id, part));
                        return Some(id);
                    }
                }
            }
        }
        None
    }

    fn update(&mut self, parent: Option<StateId>, children: &[StateId]) {
        self.random.update(parent, children);
        if self.parts.contains(&COVNEW) {
            self.covnew.update(parent, children);
        }
        let others =
            !self.newest && parent.is_some() && self.chosen.is_some_and(|(id, part)| Some(id) == parent && part != DFS);
        if others {
            self.dfs.under(children);
        } else {
            self.dfs.update(parent, children);
        }
    }
}

/// dfs's stack, its top at the back.
#[derive(Default)]
struct Dfs(VecDeque<StateId>);

impl Dfs {
    /// `children` go under the stack, to be taken after every state now in
    /// it.
    fn under(&mut self, children: &[StateId]) {
        for &c in children {
            self.0.push_front(c);
        }
    }
}

impl Searcher for Dfs {
    fn select(&mut self, _: &dyn StateInfo) -> Option<StateId> {
        self.0.pop_back()
    }

    fn update(&mut self, _: Option<StateId>, children: &[StateId]) {
        // The first child (e.g. the taken branch) is explored first.
        self.0.extend(children.iter().rev());
    }
}

struct Bfs(VecDeque<StateId>);

impl Searcher for Bfs {
    fn select(&mut self, _: &dyn StateInfo) -> Option<StateId> {
        self.0.pop_front()
    }

    fn update(&mut self, _: Option<StateId>, children: &[StateId]) {
        self.0.extend(children);
    }
}

/// KLEE's random-path searcher over the execution tree.
struct RandomPath {
    nodes: Vec<TreeNode>,
    /// Nodes pruned from the tree, reused (a run makes millions).
    free: Vec<usize>,
    leaf: rustc_hash::FxHashMap<StateId, usize>,
    root: Option<usize>,
    rng: SmallRng,
}

struct TreeNode {
    parent: Option<usize>,
    children: Vec<usize>,
    state: Option<StateId>,
    /// States that went on from this node while they sat in it (another
    /// searcher or dsm's fast-forwarding ran them), oldest first: a walk
    /// here hands them out first, as it would the chain of nodes they
    /// held ([`RandomPath::update`]).
    gone: VecDeque<StateId>,
}

impl RandomPath {
    fn new(seed: u64) -> RandomPath {
        RandomPath {
            nodes: Vec::new(),
            free: Vec::new(),
            leaf: Default::default(),
            root: None,
            rng: SmallRng::seed_from_u64(seed),
        }
    }

    fn add_node(&mut self, parent: Option<usize>, state: StateId) -> usize {
        let node = TreeNode {
            parent,
            children: Vec::new(),
            state: Some(state),
            gone: VecDeque::new(),
        };
        let n = match self.free.pop() {
            Some(n) => {
                self.nodes[n] = node;
                n
            }
            None => {
                self.nodes.push(node);
                self.nodes.len() - 1
            }
        };
        if let Some(p) = parent {
            self.nodes[p].children.push(n);
        }
        self.leaf.insert(state, n);
        n
    }

    /// Removes empty nodes from `n` upwards.
    fn prune(&mut self, mut n: usize) {
        while self.nodes[n].children.is_empty() && self.nodes[n].state.is_none() && self.nodes[n].gone.is_empty() {
            self.free.push(n);
            self.nodes[n].children = Vec::new();
            match self.nodes[n].parent {
                Some(p) => {
                    self.nodes[p].children.retain(|c| *c != n);
                    n = p;
                }
                None => {
                    self.root = None;
                    return;
                }
            }
        }
    }
}

impl Searcher for RandomPath {
    fn select(&mut self, _: &dyn StateInfo) -> Option<StateId> {
        let mut n = self.root?;
        loop {
            if let Some(s) = self.nodes[n].gone.pop_front() {
                return Some(s);
            }
            if let Some(s) = self.nodes[n].state.take() {
                return Some(s);
            }
            let kids = &self.nodes[n].children;
            if kids.is_empty() {
                // A state taken earlier that never came back (it was
                // merged into another): drop the branch and walk again.
                self.prune(n);
                n = self.root?;
                continue;
            }
            n = kids[self.rng.gen_range(0..kids.len())];
        }
    }

    fn update(&mut self, parent: Option<StateId>, children: &[StateId]) {
        let p = parent.and_then(|p| self.leaf.remove(&p));
        if p.is_none() && self.root.is_none() {
            if let [only] = children {
                self.root = Some(self.add_node(None, *only));
                return;
            }
            let r = self.nodes.len();
            self.nodes.push(TreeNode {
                parent: None,
                children: Vec::new(),
                state: None,
                gone: VecDeque::new(),
            });
            self.root = Some(r);
            for c in children {
                self.add_node(Some(r), *c);
            }
            self.prune(r);
            return;
        }
        if let (Some(p), [only]) = (p, children) {
            // A state that went on without forking keeps its node: a
            // chain of single children draws as its end does, and each
            // link costs every later walk a step (dsm, whose slices end
            // at every merge point, grew chains of millions: a scratch
            // harness of cesanta/mjson, 6 symbolic bytes, spent 75 % of
            // its time walking them and found no path in its last 15 s).
            // The state it was, if no walk took it, is handed out first
            // as the chain's link would have been: the caller finds it
            // gone and asks again, and that restart from the root is part
            // of how random-path draws beside other searchers (without
            // it, dsm on bench/multise's Heap Sort peaked at 60-126 MB in
            // 9 of 12 seeds, against 30-32 MB).
            let node = &mut self.nodes[p];
            if let Some(was) = node.state.replace(*only) {
                node.gone.push_back(was);
            }
            self.leaf.insert(*only, p);
            return;
        }
        for c in children {
            self.add_node(p, *c);
        }
        if let Some(p) = p {
            self.prune(p);
        }
    }
}

/// KLEE's nurs:covnew: weight 1/k² where k is the number of statements the
/// state ran since it last covered a new branch. Past [`CovNew::SAMPLE`]
/// states, the choice is among that many drawn at random (weighing every
/// state at every choice cost as much as the frontier is large).
struct CovNew {
    frontier: Vec<StateId>,
    rng: SmallRng,
}

impl CovNew {
    const SAMPLE: usize = 64;

    fn new(seed: u64) -> CovNew {
        CovNew {
            frontier: Vec::new(),
            rng: SmallRng::seed_from_u64(seed),
        }
    }
}

impl Searcher for CovNew {
    fn select(&mut self, info: &dyn StateInfo) -> Option<StateId> {
        if self.frontier.is_empty() {
            return None;
        }
        let n = self.frontier.len();
        let candidates: Vec<usize> = if n <= Self::SAMPLE {
            (0..n).collect()
        } else {
            (0..Self::SAMPLE).map(|_| self.rng.gen_range(0..n)).collect()
        };
        let weights: Vec<f64> = candidates
            .iter()
            .map(|&i| {
                let k = info.steps_since_cover(self.frontier[i]).max(1) as f64;
                1.0 / (k * k)
            })
            .collect();
        let total: f64 = weights.iter().sum();
        let mut pick = self.rng.gen::<f64>() * total;
        let mut chosen = candidates[candidates.len() - 1];
        for (&i, w) in candidates.iter().zip(&weights) {
            if pick < *w {
                chosen = i;
                break;
            }
            pick -= w;
        }
        Some(self.frontier.swap_remove(chosen))
    }

    fn update(&mut self, _: Option<StateId>, children: &[StateId]) {
        self.frontier.extend(children);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoInfo;
    impl StateInfo for NoInfo {
        fn steps_since_cover(&self, _: StateId) -> u64 {
            0
        }
    }

    #[test]
    fn every_searcher_visits_every_state_once() {
        let searchers = SearchKind::ALL
            .iter()
            .flat_map(|&k| [(k, make_searcher(k, 7)), (k, make_driver(k, 7))]);
        for (kind, mut s) in searchers {
            s.update(None, &[0]);
            let mut seen = Vec::new();
            let mut next = 1;
            while let Some(id) = s.select(&NoInfo) {
                seen.push(id);
                // A binary tree of depth 3 of states.
                if id < 7 {
                    s.update(Some(id), &[next, next + 1]);
                    next += 2;
                } else {
                    s.update(Some(id), &[]);
                }
            }
            seen.sort_unstable();
            assert_eq!(seen, (0..15).collect::<Vec<_>>(), "{}", kind.name());
        }
    }

    /// Interleaved with random-path, dfs still goes down its own path: in
    /// a binary tree 20 deep, a leaf within 100 choices (dfs's turns alone
    /// need 40). Children of random-path's choices on top of dfs's stack
    /// made dfs start again from random-path's shallow states.
    #[test]
    fn interleaved_dfs_reaches_a_deep_leaf() {
        const DEPTH: u32 = 20;
        for seed in 0..8 {
            let mut s = make_searcher(SearchKind::Interleaved, seed);
            let mut depth = vec![0u32];
            s.update(None, &[0]);
            let mut deepest = 0;
            for _ in 0..100 {
                let id = s.select(&NoInfo).expect("a state is left");
                let d = depth[id as usize];
                deepest = deepest.max(d);
                if d < DEPTH {
                    let next = depth.len() as StateId;
                    depth.extend([d + 1, d + 1]);
                    s.update(Some(id), &[next, next + 1]);
                } else {
                    s.update(Some(id), &[]);
                }
            }
            assert_eq!(deepest, DEPTH, "seed {seed}");
        }
    }

    /// A state that goes on without forking keeps random-path's node:
    /// fifty thousand slices of one state beside a forked one leave the
    /// tree as it was (each slice made a node under the last, and every
    /// choice walked the chain: quadratic, 8.7 s here).
    #[test]
    fn random_path_keeps_the_node_of_a_state_that_goes_on() {
        let mut s = RandomPath::new(3);
        s.update(None, &[0]);
        assert_eq!(s.select(&NoInfo), Some(0));
        s.update(Some(0), &[1, 2]);
        let nodes = s.nodes.len();
        for next in 3..50_003 {
            let id = s.select(&NoInfo).expect("a state is left");
            s.update(Some(id), &[next]);
        }
        assert_eq!(s.nodes.len(), nodes);
        // Both branches are still there, each a state.
        let a = s.select(&NoInfo).expect("a state is left");
        s.update(Some(a), &[]);
        let b = s.select(&NoInfo).expect("the other is left");
        assert_ne!(a, b);
        s.update(Some(b), &[]);
        assert_eq!(s.select(&NoInfo), None);
    }
}

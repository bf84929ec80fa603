//! WASI preview 1 (`wasi_snapshot_preview1`), enough for C programs built
//! against wasi-libc. Command-line arguments and stdin are symbolic, with
//! KLEE's meaning: `--sym-args N L` gives up to `N` arguments of up to `L`
//! bytes each after `argv[0]`, and `--sym-stdin S` a stdin of `S` symbolic
//! bytes. `fd_write` to stdout and stderr becomes `output` statements, so a
//! concrete run records what a test prints. `proc_exit` halts with the exit
//! code. The environment is empty, clocks read 0 and `random_get` fills
//! zeros, so runs are deterministic. Other WASI functions return `ENOSYS`.
//!
//! The symbolic values are made once, in `$init`, into allocation `a4`
//! ([`STATE_ALLOC`]): cell 0 holds the number of symbolic arguments
//! (input `nargs`), cell 1 the stdin position, then `N × L` argument bytes
//! (inputs `arg1` … `argN`, read `L` times each) and `S` stdin bytes
//! (input `stdin`).

use crate::builder::{bv, int, var, FnBuilder};
use crate::harness::{byte_at, counted};
use braid_ir::{FuncId, Function, Operand, Rhs, Stmt, VarId};
use braid_term::{Op, Sort, Value};

pub const MODULE: &str = "wasi_snapshot_preview1";
/// `argv[0]` of every run.
pub const ARGV0: &str = "prog";
pub const STATE_ALLOC: u32 = 4;

/// WASI errno values braid returns.
pub const ERRNO_BADF: u64 = 8;
pub const ERRNO_NOSYS: u64 = 52;
pub const ERRNO_SPIPE: u64 = 70;

/// The symbolic inputs of a WASI run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Config {
    /// `--sym-args N L`: up to `N` arguments of up to `L` bytes.
    pub sym_args: Option<(u32, u32)>,
    /// `--sym-stdin S`: `S` bytes of stdin.
    pub sym_stdin: u32,
}

impl Config {
    fn args(&self) -> (u32, u32) {
        self.sym_args.unwrap_or((0, 0))
    }

    /// The cell of argument byte `j` of symbolic argument `i` (from 0).
    fn arg_cell(&self, i: u32, j: u32) -> Value {
        state_cell(2 + (i * self.args().1 + j) as i128)
    }

    /// The cell of stdin byte `k`.
    fn stdin_cell(&self, k: u32) -> Value {
        let (n, l) = self.args();
        state_cell(2 + (n * l + k) as i128)
    }

    fn state_cells(&self) -> u64 {
        let (n, l) = self.args();
        2 + (n * l) as u64 + self.sym_stdin as u64
    }

    /// The size of the argument buffer `args_sizes_get` reports.
    pub fn args_buffer(&self) -> u32 {
        let (n, l) = self.args();
        ARGV0.len() as u32 + 1 + n * (l + 1)
    }
}

fn state_cell(offset: i128) -> Value {
    Value::Addr {
        alloc: STATE_ALLOC,
        offset,
    }
}

const NARGS: Value = Value::Addr {
    alloc: STATE_ALLOC,
    offset: 0,
};
const STDIN_POS: Value = Value::Addr {
    alloc: STATE_ALLOC,
    offset: 1,
};

/// In `$init`: allocation `a4` and the symbolic inputs.
pub fn init(b: &mut FnBuilder, config: &Config) {
    let cell = b.var("$cell");
    b.assign(cell, Rhs::Alloc(int(config.state_cells() as i128), Some(bv(8, 0))));
    let (n, l) = config.args();
    if config.sym_args.is_some() {
        let nargs = b.var("nargs");
        b.assign(
            nargs,
            Rhs::Input {
                sort: Sort::Bv(32),
                name: "nargs".into(),
            },
        );
        let fits = b.binary(Op::ULe, var(nargs), bv(32, n as u64));
        b.emit(Stmt::Assume(var(fits)));
        store(b, NARGS, var(nargs), None);
    } else {
        store(b, NARGS, bv(32, 0), None);
    }
    store(b, STDIN_POS, bv(32, 0), None);
    let input_byte = |b: &mut FnBuilder, name: String, at: Value| {
        let byte = b.temp();
        b.assign(
            byte,
            Rhs::Input {
                sort: Sort::Bv(8),
                name,
            },
        );
        store(b, at, var(byte), Some(8));
    };
    for i in 0..n {
        for j in 0..l {
            input_byte(b, format!("arg{}", i + 1), config.arg_cell(i, j));
        }
    }
    for k in 0..config.sym_stdin {
        input_byte(b, "stdin".into(), config.stdin_cell(k));
    }
}

fn store(b: &mut FnBuilder, at: Value, value: Operand, width: Option<u8>) {
    b.store(Operand::Const(at), value, width);
}

/// `*(p + k)` in linear memory, `width` bits wide.
fn load_mem(b: &mut FnBuilder, p: VarId, k: u64, width: u8) -> VarId {
    let at = byte_at(b, p, bv(32, k));
    b.load(var(at), Some(width))
}

/// `*(p + k) = value` in linear memory, `width` bits wide.
fn store_mem(b: &mut FnBuilder, p: VarId, k: u64, value: Operand, width: u8) {
    let at = byte_at(b, p, bv(32, k));
    b.store(var(at), value, Some(width));
}

/// The IR function of WASI function `name` with `params` (its wasm
/// parameters), or `None` for a function with no i32 result that braid
/// does not know.
pub fn function(id: FuncId, name: &str, sig: &crate::Sig, config: &Config) -> Option<Function> {
    let mut b = FnBuilder::new(id, name);
    let p: Vec<VarId> = sig
        .params
        .iter()
        .enumerate()
        .map(|(i, t)| b.param(&format!("p{i}"), crate::sort_of(*t)))
        .collect();
    let arg = |i: usize| p.get(i).copied();
    let ret = |b: &mut FnBuilder, errno: u64| b.emit(Stmt::Ret(Some(bv(32, errno))));
    let i32_result = sig.results == [wasmparser::ValType::I32];
    match name {
        "proc_exit" => {
            b.emit(Stmt::Halt(Some(var(arg(0)?))));
            return Some(b.finish());
        }
        _ if !i32_result => return None,
        "args_sizes_get" => {
            let n = nargs(&mut b);
            let argc = b.binary(Op::Add, bv(32, 1), var(n));
            store_mem(&mut b, arg(0)?, 0, var(argc), 32);
            store_mem(&mut b, arg(1)?, 0, bv(32, config.args_buffer() as u64), 32);
            ret(&mut b, 0);
        }
        "args_get" => args_get(&mut b, arg(0)?, arg(1)?, config),
        "environ_sizes_get" => {
            store_mem(&mut b, arg(0)?, 0, bv(32, 0), 32);
            store_mem(&mut b, arg(1)?, 0, bv(32, 0), 32);
            ret(&mut b, 0);
        }
        "environ_get" | "fd_close" | "sched_yield" | "fd_fdstat_set_flags" => ret(&mut b, 0),
        "fd_write" => fd_write(&mut b, [arg(0)?, arg(1)?, arg(2)?, arg(3)?]),
        "fd_read" => fd_read(&mut b, [arg(0)?, arg(1)?, arg(2)?, arg(3)?], config),
        "fd_fdstat_get" => {
            // stdin, stdout and stderr are character devices that can be
            // read and written (not seeked: not files, and ttys).
            let (fd, at) = (arg(0)?, arg(1)?);
            let bad = b.binary(Op::UGt, var(fd), bv(32, 2));
            let badf = b.label("badf");
            b.branch(bad, badf);
            store_mem(&mut b, at, 0, bv(8, 2), 8);
            store_mem(&mut b, at, 1, bv(8, 0), 8);
            store_mem(&mut b, at, 2, bv(16, 0), 16);
            store_mem(&mut b, at, 4, bv(32, 0), 32);
            store_mem(&mut b, at, 8, bv(64, 0x42), 64);
            store_mem(&mut b, at, 16, bv(64, 0x42), 64);
            ret(&mut b, 0);
            b.place(badf);
            ret(&mut b, ERRNO_BADF);
        }
        "fd_seek" | "fd_tell" => ret(&mut b, ERRNO_SPIPE),
        "fd_prestat_get" | "fd_prestat_dir_name" => ret(&mut b, ERRNO_BADF),
        "clock_time_get" => {
            store_mem(&mut b, arg(2)?, 0, bv(64, 0), 64);
            ret(&mut b, 0);
        }
        "clock_res_get" => {
            store_mem(&mut b, arg(1)?, 0, bv(64, 1), 64);
            ret(&mut b, 0);
        }
        "random_get" => {
            let (buf, len) = (arg(0)?, arg(1)?);
            counted(&mut b, len, |b, j| {
                let at = byte_at(b, buf, var(j));
                b.store(var(at), bv(8, 0), Some(8));
            });
            ret(&mut b, 0);
        }
        _ => ret(&mut b, ERRNO_NOSYS),
    }
    Some(b.finish())
}

/// The number of symbolic arguments (cell 0 of the state).
fn nargs(b: &mut FnBuilder) -> VarId {
    b.load(Operand::Const(NARGS), None)
}

/// `args_get(argv, buf)`: `argv[0]` is [`ARGV0`]; symbolic argument `i`
/// sits at a fixed place in `buf`, and `argv[1 + i]` points to it when
/// `i < nargs`.
fn args_get(b: &mut FnBuilder, argv: VarId, buf: VarId, config: &Config) {
    for (k, byte) in ARGV0.bytes().chain([0]).enumerate() {
        store_mem(b, buf, k as u64, bv(8, byte as u64), 8);
    }
    store_mem(b, argv, 0, var(buf), 32);
    let n = nargs(b);
    let (count, len) = config.args();
    for i in 0..count {
        let start = (ARGV0.len() as u32 + 1 + i * (len + 1)) as u64;
        for j in 0..len {
            let byte = b.load(Operand::Const(config.arg_cell(i, j)), Some(8));
            store_mem(b, buf, start + j as u64, var(byte), 8);
        }
        store_mem(b, buf, start + len as u64, bv(8, 0), 8);
        let absent = b.binary(Op::UGe, bv(32, i as u64), var(n));
        let skip = b.label("absent");
        b.branch(absent, skip);
        let ptr = b.binary(Op::Add, var(buf), bv(32, start));
        store_mem(b, argv, 4 * (1 + i as u64), var(ptr), 32);
        b.place(skip);
    }
    b.emit(Stmt::Ret(Some(bv(32, 0))));
}

/// The `(buffer, length)` of I/O vector `k` at `iovs`.
fn iovec(b: &mut FnBuilder, iovs: VarId, k: VarId) -> (VarId, VarId) {
    let at = b.binary(Op::Mul, var(k), bv(32, 8));
    let entry = b.binary(Op::Add, var(iovs), var(at));
    (load_mem(b, entry, 0, 32), load_mem(b, entry, 4, 32))
}

/// `fd_write(fd, iovs, n, nwritten)` to stdout (1) or stderr (2).
fn fd_write(b: &mut FnBuilder, [fd, iovs, n, written]: [VarId; 4]) {
    let out = b.binary(Op::Eq, var(fd), bv(32, 1));
    let err = b.binary(Op::Eq, var(fd), bv(32, 2));
    let ok = b.binary(Op::Or, var(out), var(err));
    let badf = b.label("badf");
    let not_ok = b.unary(Op::Not, var(ok));
    b.branch(not_ok, badf);
    let total = b.temp();
    b.assign(total, Rhs::Copy(bv(32, 0)));
    counted(b, n, |b, k| {
        let (base, len) = iovec(b, iovs, k);
        counted(b, len, |b, j| {
            let at = byte_at(b, base, var(j));
            let byte = b.load(var(at), Some(8));
            b.emit(Stmt::Output {
                stream: var(fd),
                byte: var(byte),
            });
        });
        b.assign(total, Rhs::Binary(Op::Add, var(total), var(len)));
    });
    store_mem(b, written, 0, var(total), 32);
    b.emit(Stmt::Ret(Some(bv(32, 0))));
    b.place(badf);
    b.emit(Stmt::Ret(Some(bv(32, ERRNO_BADF))));
}

/// `fd_read(fd, iovs, n, nread)` from stdin (0): the next symbolic bytes,
/// until the `S` of `--sym-stdin` run out.
fn fd_read(b: &mut FnBuilder, [fd, iovs, n, read]: [VarId; 4], config: &Config) {
    let not_stdin = b.binary(Op::Ne, var(fd), bv(32, 0));
    let badf = b.label("badf");
    b.branch(not_stdin, badf);
    let total = b.temp();
    b.assign(total, Rhs::Copy(bv(32, 0)));
    let eof = b.label("eof");
    let base_cell = Operand::Const(config.stdin_cell(0));
    let size = config.sym_stdin as u64;
    counted(b, n, |b, k| {
        let (buf, len) = iovec(b, iovs, k);
        counted(b, len, |b, j| {
            let pos = b.load(Operand::Const(STDIN_POS), None);
            let at_end = b.binary(Op::UGe, var(pos), bv(32, size));
            b.branch(at_end, eof);
            let wide = b.unary(Op::ZExt(64), var(pos));
            let off = b.unary(Op::ToInt, var(wide));
            let cell = b.binary(Op::Add, base_cell.clone(), var(off));
            let byte = b.load(var(cell), Some(8));
            let to = byte_at(b, buf, var(j));
            b.store(var(to), var(byte), Some(8));
            let next = b.binary(Op::Add, var(pos), bv(32, 1));
            b.store(Operand::Const(STDIN_POS), var(next), None);
            b.assign(total, Rhs::Binary(Op::Add, var(total), bv(32, 1)));
        });
    });
    b.place(eof);
    store_mem(b, read, 0, var(total), 32);
    b.emit(Stmt::Ret(Some(bv(32, 0))));
    b.place(badf);
    b.emit(Stmt::Ret(Some(bv(32, ERRNO_BADF))));
}

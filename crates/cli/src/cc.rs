//! C in: `braid run prog.c` (or a preprocessed `.i`) compiles the source
//! with clang to a wasm32 module first, and `braid replay prog.c` compiles
//! it again the same way.

use anyhow::{anyhow, bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The harness header every compilation can include (`#include "braid.h"`).
const BRAID_H: &str = include_str!("../../../include/braid.h");
/// Owi's header name, for harnesses written for Owi (`#include <owi.h>`):
/// braid.h declares Owi's functions.
const OWI_H: &str = "#include \"braid.h\"\n";
/// The headers braid puts on the include path.
const HEADERS: [&str; 2] = ["braid.h", "owi.h"];

/// String functions byte by byte, linked before wasi-libc (whose word-at-a-
/// time versions make every branch relate four symbolic bytes); weak, so a
/// program's own definitions win.
const BRAID_LIBC: &str = include_str!("../../../include/braid_libc.c");

/// How to get C++'s standard library for wasm32 when it is missing.
const INSTALL_CPP: &str = "apt-get install libc++-dev-wasm32";

/// How to get clang when it is missing.
const INSTALL: &str =
    "apt-get install clang lld (and wasi-libc libclang-rt-dev-wasm32 for programs that use the C library)";

/// Whether `file`, or a header it includes with quotes (found beside the
/// file that includes it), includes a system header other than braid.h.
/// A library's own header often includes `<sys/types.h>` or `<stddef.h>`
/// for the harness that includes only it. `seen`: the files looked at.
fn includes_system_header(file: &Path, seen: &mut Vec<PathBuf>) -> bool {
    if seen.iter().any(|s| s == file) {
        return false;
    }
    seen.push(file.to_path_buf());
    let Ok(text) = std::fs::read(file) else {
        return false;
    };
    let dir = file.parent().unwrap_or(Path::new("."));
    String::from_utf8_lossy(&text).lines().any(|l| {
        let Some(rest) = l.trim_start().strip_prefix('#').map(str::trim_start) else {
            return false;
        };
        let Some(target) = rest.strip_prefix("include").map(str::trim) else {
            return false;
        };
        if target.starts_with('<') {
            return !HEADERS.iter().any(|h| target.contains(h));
        }
        let quoted = target.strip_prefix('"').and_then(|t| t.split('"').next());
        quoted.is_some_and(|name| !HEADERS.contains(&name) && includes_system_header(&dir.join(name), seen))
    })
}

/// Whether `path` names a C (`.c`, `.i`) or C++ (`.cpp`, `.cc`, `.cxx`)
/// source, which braid compiles.
pub(crate) fn is_source(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("c" | "i" | "cpp" | "cc" | "cxx")
    )
}

fn is_cpp(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("cpp" | "cc" | "cxx"))
}

/// Compiles `source` (with the further sources `more`) to WebAssembly. A
/// program that includes a system header (`#include <…>`, other than
/// braid.h; itself or through its own headers, [`includes_system_header`])
/// is built against wasi-libc (`--target=wasm32-wasi`); others
/// freestanding, every function exported.
/// Either way the harness functions stay imports (`--allow-undefined`),
/// `braid.h` is on the include path, debug information is kept (`-g`) and
/// the stack is 8 MiB, as a native one. With wasi-libc, braid's own string
/// functions ([`BRAID_LIBC`]) come first.
/// `cflags` (whitespace-separated) come last, so they can override (`-O2`).
/// Whether clang finds wasi-libc: it preprocesses `#include <stdio.h>` for
/// wasm32-wasi (asked only after a compilation failed on a missing file).
fn wasi_libc_works() -> bool {
    let child = Command::new("clang")
        .args(["--target=wasm32-wasi", "-E", "-x", "c", "-", "-o", "/dev/null"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    let Ok(mut child) = child else { return false };
    let written = child
        .stdin
        .take()
        .is_some_and(|mut i| braid_budget::write_to_child(&mut i, b"#include <stdio.h>\n"));
    child.wait().is_ok_and(|s| s.success()) && written
}

pub(crate) fn compile(source: &Path, more: &[String], cflags: Option<&str>) -> Result<Vec<u8>> {
    let shown = source.display();
    // C++ is built against wasi-libc, for `operator new`'s malloc.
    let mut libc = is_cpp(source);
    for file in std::iter::once(source).chain(more.iter().map(Path::new)) {
        std::fs::metadata(file).with_context(|| format!("cannot read {}", file.display()))?;
        libc |= includes_system_header(file, &mut Vec::new());
    }
    let dir = std::env::temp_dir().join(format!("braid-cc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let result = (|| {
        std::fs::write(dir.join("braid.h"), BRAID_H).context("cannot write braid.h")?;
        std::fs::write(dir.join("owi.h"), OWI_H).context("cannot write owi.h")?;
        let strings = dir.join("braid_libc.c");
        std::fs::write(&strings, BRAID_LIBC).context("cannot write braid_libc.c")?;
        let out = dir.join("program.wasm");
        // C++ with clang++ and libc++ (Debian's libc++-dev-wasm32), without
        // exceptions (wasm32's C++ has no unwinding here); the harness
        // header is C (`extern "C"`).
        let cpp = is_cpp(source);
        let mut cmd = Command::new(if cpp { "clang++" } else { "clang" });
        if cpp {
            cmd.arg("-fno-exceptions");
        }
        if libc {
            cmd.arg("--target=wasm32-wasi");
        } else {
            cmd.args(["--target=wasm32", "-nostdlib", "-Wl,--no-entry", "-Wl,--export-all"]);
        }
        // An 8 MiB stack as a native program has (wasm-ld's default is
        // 64 KiB): C programs with big local arrays and deep recursion fit.
        // The engines' memories cost the pages a run writes, not their size.
        cmd.args(["-O0", "-g", "-Wl,--allow-undefined", "-Wl,-z,stack-size=8388608"])
            .arg("-I")
            .arg(&dir)
            .arg(source);
        // clang++ reads a `.c` file as C++: C sources (braid's string
        // functions, a project's C files) are named C.
        let c_files = more
            .iter()
            .map(Path::new)
            .filter(|f| !is_cpp(f))
            .chain(libc.then_some(strings.as_path()));
        for f in more.iter().map(Path::new).filter(|f| is_cpp(f)) {
            cmd.arg(f);
        }
        for f in c_files {
            if cpp {
                cmd.args(["-x", "c"]).arg(f).args(["-x", "none"]);
            } else {
                cmd.arg(f);
            }
        }
        cmd.arg("-o").arg(&out);
        cmd.args(cflags.unwrap_or("").split_whitespace());
        let o = match cmd.output() {
            Ok(o) => o,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                bail!("{shown}: compiling C and C++ needs clang, which is not installed: {INSTALL}")
            }
            Err(e) => return Err(anyhow!("{shown}: cannot run clang: {e}")),
        };
        if !o.status.success() {
            let err = String::from_utf8_lossy(&o.stderr);
            let hint = if err.contains("wasm-ld") && err.contains("not found")
                || err.contains("unable to execute command")
            {
                format!("\n(the linker is missing: {INSTALL})")
            } else if cpp && (err.contains("file not found") || err.contains("-lc++")) {
                format!("\n(C++'s standard library for wasm32 is missing: {INSTALL_CPP})")
            } else if libc && err.contains("setjmp.h") {
                "\n(setjmp and longjmp are not available in C compiled to wasm32: wasi-libc has no <setjmp.h>)"
                    .to_string()
            } else if libc && (err.contains("file not found") || err.contains("cannot find") || err.contains("-lc")) {
                if wasi_libc_works() {
                    // The C library is there: the missing file is the
                    // program's own.
                    format!(
                        "\n(wasm32-wasi's C library is installed; for a header of the program's own, pass its \
                         directory: --cflags \"-I DIR\"{})",
                        if err.contains("with <angled> include") {
                            ", or include it with quotes"
                        } else {
                            ""
                        }
                    )
                } else {
                    format!("\n(the C library for wasm32-wasi is missing: {INSTALL})")
                }
            } else {
                String::new()
            };
            bail!("{shown}: clang failed:\n{}{hint}", err.trim_end());
        }
        std::fs::read(&out).with_context(|| format!("cannot read {}", out.display()))
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

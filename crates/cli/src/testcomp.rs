//! Test-Comp's test-suite format (sosy-lab.org/test-format 1.1):
//! `test-suite/metadata.xml` and one `testNNNNNN.xml` per test, whose
//! `<input>` elements are the test's inputs in the order the program reads
//! them, written as C literals of the type each input was read as; at the
//! end of the run, `test-suite.zip` with the same files, as Test-Comp
//! submits them.

use anyhow::{Context, Result};
use braid_engine::results::TestInput;
use braid_engine::TestCase;
use braid_term::Value;
use sha2::{Digest, Sha256};
use std::fmt::Write;
use std::path::Path;

/// An input as a C literal: unsigned for `__VERIFIER_nondet_u*` and
/// `unsigned` types, signed otherwise.
fn literal(input: &TestInput) -> String {
    let base = input.name.split('#').next().unwrap_or(&input.name);
    let ty = base.strip_prefix("__VERIFIER_nondet_").unwrap_or("");
    let unsigned = ty.starts_with('u') || ty == "bool" || ty == "size_t" || ty == "pointer";
    match input.parsed() {
        Some(Value::Bv { width, bits }) if unsigned => {
            let _ = width;
            bits.to_string()
        }
        Some(Value::Bv { width, bits }) => Value::bv_signed(width, bits).to_string(),
        Some(Value::Bool(b)) => (b as u8).to_string(),
        Some(v) => v.to_string(),
        None => input.value.clone(),
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// What a Test-Comp test suite is for: its specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// coverage-branches (`braid run`).
    Branches,
    /// coverage-error-call (`braid verify`): a test that calls `reach_error`.
    ErrorCall,
}

impl Goal {
    fn specification(self) -> &'static str {
        match self {
            Goal::Branches => "COVER( init(main()), FQL(COVER EDGES(@DECISIONEDGE)) )",
            Goal::ErrorCall => "COVER( init(main()), FQL(COVER EDGES(@CALL(reach_error))) )",
        }
    }
}

/// Starts `dir/test-suite/` for `program`: its `metadata.xml`.
pub fn start(dir: &Path, program: &Path, entry: &str, goal: Goal) -> Result<()> {
    let suite = dir.join("test-suite");
    std::fs::create_dir_all(&suite).with_context(|| format!("cannot create {}", suite.display()))?;
    let bytes = std::fs::read(program).with_context(|| format!("cannot read {}", program.display()))?;
    let hash: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
    let name = program
        .file_name()
        .map_or_else(|| program.display().to_string(), |n| n.to_string_lossy().into_owned());
    // C's main(argc, argv) is exported as `__main_argc_argv`.
    let entry = match entry.trim_start_matches('$') {
        "__main_argc_argv" | "__original_main" => "main",
        e => e,
    };
    let metadata = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE test-metadata PUBLIC "+//IDN sosy-lab.org//DTD test-format test-metadata 1.1//EN" "https://sosy-lab.org/test-format/test-metadata-1.1.dtd">
<test-metadata>
  <sourcecodelang>C</sourcecodelang>
  <producer>braid {}</producer>
  <specification>{}</specification>
  <programfile>{}</programfile>
  <programhash>{hash}</programhash>
  <entryfunction>{}</entryfunction>
  <architecture>32bit</architecture>
  <creationtime>{}</creationtime>
</test-metadata>
"#,
        env!("CARGO_PKG_VERSION"),
        goal.specification(),
        escape(&name),
        escape(entry),
        now_utc()
    );
    crate::output::write_atomically(&suite.join("metadata.xml"), metadata.as_bytes())
}

/// Writes the `index`-th test (from 0) as `dir/test-suite/testNNNNNN.xml`.
pub fn write_test(dir: &Path, index: usize, test: &TestCase) -> Result<()> {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n\
         <!DOCTYPE testcase PUBLIC \"+//IDN sosy-lab.org//DTD test-format testcase 1.1//EN\" \"https://sosy-lab.org/test-format/testcase-1.1.dtd\">\n\
         <testcase>\n",
    );
    for input in &test.inputs {
        let _ = writeln!(xml, "  <input>{}</input>", escape(&literal(input)));
    }
    xml.push_str("</testcase>\n");
    let path = dir.join("test-suite").join(format!("test{:06}.xml", index + 1));
    crate::output::write_atomically(&path, xml.as_bytes())
}

/// The current time as `YYYY-MM-DDThh:mm:ssZ`.
fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + (month <= 2) as i64;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Writes `dir/test-suite.zip`: every file of `dir/test-suite/` under
/// `test-suite/`, stored (ZIP's method 0, which every unzip reads).
pub fn zip(dir: &Path) -> Result<()> {
    let suite = dir.join("test-suite");
    let mut names: Vec<String> = std::fs::read_dir(&suite)
        .with_context(|| format!("cannot read {}", suite.display()))?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".xml"))
        .collect();
    names.sort();
    let mut out: Vec<u8> = Vec::new();
    let mut central: Vec<u8> = Vec::new();
    for name in &names {
        let data = std::fs::read(suite.join(name)).with_context(|| format!("cannot read {name}"))?;
        let path = format!("test-suite/{name}");
        let (crc, size, offset) = (crc32(&data), data.len() as u32, out.len() as u32);
        // Local file header: version 2.0, no flags, stored, no time.
        out.extend(0x0403_4b50u32.to_le_bytes());
        out.extend([20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]);
        out.extend(crc.to_le_bytes());
        out.extend(size.to_le_bytes());
        out.extend(size.to_le_bytes());
        out.extend((path.len() as u16).to_le_bytes());
        out.extend(0u16.to_le_bytes());
        out.extend(path.as_bytes());
        out.extend(&data);
        central.extend(0x0201_4b50u32.to_le_bytes());
        central.extend([20, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]);
        central.extend(crc.to_le_bytes());
        central.extend(size.to_le_bytes());
        central.extend(size.to_le_bytes());
        central.extend((path.len() as u16).to_le_bytes());
        central.extend([0u8; 8]);
        central.extend(0u32.to_le_bytes());
        central.extend(offset.to_le_bytes());
        central.extend(path.as_bytes());
    }
    let start = out.len() as u32;
    out.extend(&central);
    out.extend(0x0605_4b50u32.to_le_bytes());
    out.extend([0u8; 4]);
    out.extend((names.len() as u16).to_le_bytes());
    out.extend((names.len() as u16).to_le_bytes());
    out.extend((central.len() as u32).to_le_bytes());
    out.extend(start.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    crate::output::write_atomically(&dir.join("test-suite.zip"), &out)
}

/// CRC-32 (IEEE), as ZIP checks entries.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    #[test]
    fn crc32_of_a_known_string() {
        assert_eq!(super::crc32(b"123456789"), 0xcbf4_3926);
    }
}

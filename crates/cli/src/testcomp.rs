//! Test-Comp's test-suite format (sosy-lab.org/test-format 1.1):
//! `test-suite/metadata.xml` and one `testNNNNNN.xml` per test, whose
//! `<input>` elements are the test's inputs in the order the program reads
//! them, written as C literals of the type each input was read as.

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

/// Starts `dir/test-suite/` for `program`: its `metadata.xml`.
pub fn start(dir: &Path, program: &Path, entry: &str) -> Result<()> {
    let suite = dir.join("test-suite");
    std::fs::create_dir_all(&suite).with_context(|| format!("cannot create {}", suite.display()))?;
    let bytes = std::fs::read(program).with_context(|| format!("cannot read {}", program.display()))?;
    let hash: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
    let name = program
        .file_name()
        .map_or_else(|| program.display().to_string(), |n| n.to_string_lossy().into_owned());
    let entry = entry.trim_start_matches('$');
    let metadata = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE test-metadata PUBLIC "+//IDN sosy-lab.org//DTD test-format test-metadata 1.1//EN" "https://sosy-lab.org/test-format/test-metadata-1.1.dtd">
<test-metadata>
  <sourcecodelang>C</sourcecodelang>
  <producer>braid {}</producer>
  <specification>CHECK( init(main()), LTL(G ! call(reach_error())) )</specification>
  <programfile>{}</programfile>
  <programhash>{hash}</programhash>
  <entryfunction>{}</entryfunction>
  <architecture>32bit</architecture>
</test-metadata>
"#,
        env!("CARGO_PKG_VERSION"),
        escape(&name),
        escape(entry)
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

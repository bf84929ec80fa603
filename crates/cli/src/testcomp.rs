//! Test-Comp's test-suite format (sosy-lab.org/test-format 1.1):
//! `test-suite/metadata.xml` and one `testNNNNNN.xml` per test, whose
//! `<input>` elements are the test's inputs in the order the program reads
//! them, written as C literals of the type each input was read as; and
//! `test-suite.zip` with the same files, as Test-Comp submits them, written
//! as the tests come and put in place when the run ends.

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

/// Starts `dir/test-suite/` for `program`: its `metadata.xml`, which is
/// also the first entry of `test-suite.zip` (returned, written as tests come).
pub fn start(dir: &Path, program: &Path, entry: &str, goal: Goal) -> Result<Zip> {
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
    crate::output::write_atomically(&suite.join("metadata.xml"), metadata.as_bytes())?;
    let mut zip = Zip::create(&dir.join("test-suite.zip"))?;
    zip.add("test-suite/metadata.xml", metadata.as_bytes())?;
    Ok(zip)
}

/// The Test-Comp XML of `test`, into `xml` (cleared first).
pub fn test_xml(test: &TestCase, xml: &mut String) {
    xml.clear();
    xml.push_str(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n\
         <!DOCTYPE testcase PUBLIC \"+//IDN sosy-lab.org//DTD test-format testcase 1.1//EN\" \"https://sosy-lab.org/test-format/testcase-1.1.dtd\">\n\
         <testcase>\n",
    );
    for input in &test.inputs {
        let _ = writeln!(xml, "  <input>{}</input>", escape(&literal(input)));
    }
    xml.push_str("</testcase>\n");
}

/// Writes the `index`-th test's XML (from 0, made by [`test_xml`]) as
/// `dir/test-suite/testNNNNNN.xml` and adds it to the suite's `zip`.
pub fn write_test(dir: &Path, zip: &mut Zip, index: usize, xml: &str) -> Result<()> {
    let name = format!("test{:06}.xml", index + 1);
    crate::output::write_atomically(&dir.join("test-suite").join(&name), xml.as_bytes())?;
    zip.add(&format!("test-suite/{name}"), xml.as_bytes())
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

/// `test-suite.zip` written as the tests come: each file's entry appended
/// as it is written (stored, ZIP's method 0, which every unzip reads), the
/// central directory at the end (ZIP64's end records past 65 535 entries).
/// Zipping the directory at the end re-read every file after the run's time
/// was up. The archive is written under a temporary name and renamed when
/// finished, so a run killed outright leaves no half archive.
pub struct Zip {
    file: std::io::BufWriter<std::fs::File>,
    tmp: std::path::PathBuf,
    path: std::path::PathBuf,
    central: Vec<u8>,
    entries: u64,
    offset: u64,
}

impl Zip {
    pub fn create(path: &Path) -> Result<Zip> {
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = std::path::PathBuf::from(tmp);
        let file = std::fs::File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
        Ok(Zip {
            file: std::io::BufWriter::new(file),
            tmp,
            path: path.to_path_buf(),
            central: Vec::new(),
            entries: 0,
            offset: 0,
        })
    }

    pub fn add(&mut self, name: &str, data: &[u8]) -> Result<()> {
        use std::io::Write as _;
        let offset = u32::try_from(self.offset).context("test-suite.zip past 4 GiB")?;
        let (crc, size) = (crc32(data), data.len() as u32);
        let mut local = Vec::with_capacity(30 + name.len() + data.len());
        // Local file header: version 2.0, no flags, stored, no time.
        local.extend(0x0403_4b50u32.to_le_bytes());
        local.extend([20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]);
        local.extend(crc.to_le_bytes());
        local.extend(size.to_le_bytes());
        local.extend(size.to_le_bytes());
        local.extend((name.len() as u16).to_le_bytes());
        local.extend(0u16.to_le_bytes());
        local.extend(name.as_bytes());
        local.extend(data);
        self.file
            .write_all(&local)
            .with_context(|| format!("cannot write {}", self.tmp.display()))?;
        let c = &mut self.central;
        c.extend(0x0201_4b50u32.to_le_bytes());
        c.extend([20, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]);
        c.extend(crc.to_le_bytes());
        c.extend(size.to_le_bytes());
        c.extend(size.to_le_bytes());
        c.extend((name.len() as u16).to_le_bytes());
        c.extend([0u8; 8]);
        c.extend(0u32.to_le_bytes());
        c.extend(offset.to_le_bytes());
        c.extend(name.as_bytes());
        self.offset += local.len() as u64;
        self.entries += 1;
        Ok(())
    }

    /// The central directory and end records; the archive renamed into place.
    pub fn finish(mut self) -> Result<()> {
        use std::io::Write as _;
        let start = self.offset;
        let size = self.central.len() as u64;
        let mut end = std::mem::take(&mut self.central);
        let small = self.entries <= 0xFFFF && start + size <= u32::MAX as u64;
        if !small {
            // ZIP64 end of central directory record, then its locator.
            let record = start + size;
            end.extend(0x0606_4b50u32.to_le_bytes());
            end.extend(44u64.to_le_bytes());
            end.extend([45, 0, 45, 0]);
            end.extend([0u8; 8]);
            end.extend(self.entries.to_le_bytes());
            end.extend(self.entries.to_le_bytes());
            end.extend(size.to_le_bytes());
            end.extend(start.to_le_bytes());
            end.extend(0x0706_4b50u32.to_le_bytes());
            end.extend(0u32.to_le_bytes());
            end.extend(record.to_le_bytes());
            end.extend(1u32.to_le_bytes());
        }
        let count = if small { self.entries as u16 } else { 0xFFFF };
        end.extend(0x0605_4b50u32.to_le_bytes());
        end.extend([0u8; 4]);
        end.extend(count.to_le_bytes());
        end.extend(count.to_le_bytes());
        end.extend((size.min(u32::MAX as u64) as u32).to_le_bytes());
        end.extend((start.min(u32::MAX as u64) as u32).to_le_bytes());
        end.extend(0u16.to_le_bytes());
        self.file
            .write_all(&end)
            .and_then(|()| self.file.flush())
            .with_context(|| format!("cannot write {}", self.tmp.display()))?;
        std::fs::rename(&self.tmp, &self.path).with_context(|| format!("cannot write {}", self.path.display()))
    }
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

    /// The archive as Python's zipfile reads it, past 65 535 entries too
    /// (ZIP64's end records).
    #[test]
    fn zips_of_few_and_many_entries_read_back() {
        let dir = tempfile::tempdir().expect("temp dir");
        for n in [3usize, 70_000] {
            let path = dir.path().join(format!("t{n}.zip"));
            let mut zip = super::Zip::create(&path).expect("create");
            for i in 0..n {
                zip.add(&format!("test-suite/test{i:06}.xml"), format!("<t>{i}</t>").as_bytes())
                    .expect("add");
            }
            zip.finish().expect("finish");
            let script = "import sys, zipfile\n\
                z = zipfile.ZipFile(sys.argv[1])\n\
                assert z.testzip() is None\n\
                names = z.namelist()\n\
                assert len(names) == int(sys.argv[2]), len(names)\n\
                assert z.read(names[-1]) == ('<t>%d</t>' % (len(names) - 1)).encode()\n";
            let Ok(o) = std::process::Command::new("python3")
                .args(["-c", script, &path.display().to_string(), &n.to_string()])
                .output()
            else {
                // No Python: the bytes still start as a ZIP does.
                assert!(std::fs::read(&path).expect("read").starts_with(b"PK\x03\x04"));
                continue;
            };
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        }
    }
}

//! Reading NVD files without holding them: the top-level object is walked key by key and its
//! `vulnerabilities` array item by item (each item a small JSON tree, read within
//! [`super::MAX_RECORD_BYTES`] by a reader that refuses more), plain or gzip (by the magic
//! bytes); and the `.json` / `.json.gz` files under a directory, walked without recursion
//! within a depth and a count. Must not touch HTTP types or SQL.

use std::cell::Cell;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::MAX_RECORD_BYTES;

/// A reader that fails once more than the limit was read since the counter was last reset
/// (before each item), so one item cannot make the reader hold more.
struct Limited<R> {
    inner: R,
    used: Rc<Cell<u64>>,
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.used.get() > MAX_RECORD_BYTES {
            return Err(std::io::Error::other(format!(
                "an item larger than {MAX_RECORD_BYTES} bytes"
            )));
        }
        let n = self.inner.read(buf)?;
        self.used.set(self.used.get() + n as u64);
        Ok(n)
    }
}

/// Receives each item; false stops the file.
pub type Sink<'a> = &'a mut dyn FnMut(Value) -> bool;

struct TopVisitor<'a> {
    sink: Sink<'a>,
    used: Rc<Cell<u64>>,
}

impl<'de> Visitor<'de> for TopVisitor<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an NVD CVE JSON 2.0 object with `vulnerabilities`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<bool, A::Error> {
        let mut found = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "vulnerabilities" && !found {
                found = true;
                map.next_value_seed(Items {
                    sink: &mut *self.sink,
                    used: Rc::clone(&self.used),
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
            self.used.set(0);
        }
        Ok(found)
    }
}

struct Items<'a> {
    sink: Sink<'a>,
    used: Rc<Cell<u64>>,
}

impl<'de> DeserializeSeed<'de> for Items<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Items<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of CVE items")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<(), A::Error> {
        loop {
            self.used.set(0);
            let Some(item) = seq.next_element::<Value>()? else {
                return Ok(());
            };
            if !(self.sink)(item) {
                return Err(de::Error::custom("stopped"));
            }
        }
    }
}

/// Streams the items of one file (plain JSON or gzip) into `sink`; `Err` is why the file (or
/// its rest) could not be read.
pub fn stream_file(path: &Path, sink: Sink<'_>) -> std::result::Result<(), String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open ({e})"))?;
    let mut buffered = std::io::BufReader::new(file);
    let gz = {
        use std::io::BufRead as _;
        let head = buffered
            .fill_buf()
            .map_err(|e| format!("unreadable ({e})"))?;
        head.starts_with(&[0x1f, 0x8b])
    };
    let inner: Box<dyn Read> = if gz {
        Box::new(std::io::BufReader::new(flate2::read::MultiGzDecoder::new(
            buffered,
        )))
    } else {
        Box::new(buffered)
    };
    let used = Rc::new(Cell::new(0));
    let reader = Limited {
        inner,
        used: Rc::clone(&used),
    };
    let mut de = serde_json::Deserializer::from_reader(reader);
    let found = de::Deserializer::deserialize_map(&mut de, TopVisitor { sink, used })
        .map_err(|e| format!("not readable as NVD CVE JSON 2.0 ({e})"))?;
    if !found {
        return Err("no `vulnerabilities` array".into());
    }
    Ok(())
}

/// Whether a file in a directory is read: `.json` or `.json.gz`.
fn is_input(p: &Path) -> bool {
    let name = p
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    name.ends_with(".json") || name.ends_with(".json.gz")
}

/// The files to read under `path`, sorted; a file named directly is read whatever its name.
pub fn files_under(
    path: &Path,
    out: &mut Vec<PathBuf>,
    depth: usize,
    max_files: usize,
) -> std::io::Result<()> {
    if path.is_file() || depth == 0 {
        out.push(path.to_path_buf());
        return Ok(());
    }
    // Directories still to walk, with their remaining depth (no recursion).
    let mut pending = vec![(path.to_path_buf(), depth)];
    while let Some((dir, left)) = pending.pop() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        let mut subdirs = Vec::new();
        for e in entries {
            if out.len() >= max_files {
                return Ok(());
            }
            if e.is_dir() {
                if left > 1 {
                    subdirs.push((e, left - 1));
                }
            } else if is_input(&e) {
                out.push(e);
            }
        }
        // Walked in name order: the last pushed is taken first.
        pending.extend(subdirs.into_iter().rev());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn item(cve: Value) -> Value {
        json!({ "cve": cve })
    }

    fn base(id: &str) -> Value {
        json!({"id": id, "published": "2024-01-02T03:04:05.000",
               "lastModified": "2024-02-01T00:00:00.000",
               "descriptions": [{"lang": "en", "value": "First."},
                                {"lang": "es", "value": "Primero."},
                                {"lang": "en", "value": "Second."}],
               "references": [{"url": "https://b.example/x"}, {"url": "https://a.example/y"},
                              {"url": "https://b.example/x"}]})
    }

    #[test]
    fn items_stream_one_at_a_time_and_oversized_ones_stop_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nvdcve-2.0-2024.json");
        let doc = json!({"resultsPerPage": 2, "format": "NVD_CVE", "version": "2.0",
            "vulnerabilities": [item(base("CVE-2024-0001")), item(base("CVE-2024-0002"))],
            "timestamp": "2024-03-01T00:00:00.000"});
        std::fs::write(&path, doc.to_string()).unwrap();
        let mut ids = Vec::new();
        stream_file(&path, &mut |v| {
            ids.push(v["cve"]["id"].as_str().unwrap().to_string());
            true
        })
        .unwrap();
        assert_eq!(ids, ["CVE-2024-0001", "CVE-2024-0002"]);

        // Gzip is read by its magic bytes.
        let gz = dir.path().join("nvdcve-2.0-2024.json.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut enc, doc.to_string().as_bytes()).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        let mut n = 0;
        stream_file(&gz, &mut |_| {
            n += 1;
            true
        })
        .unwrap();
        assert_eq!(n, 2);

        let mut huge = base("CVE-2024-0003");
        huge["descriptions"] = json!([{"lang": "en",
            "value": "x".repeat(MAX_RECORD_BYTES as usize + 10)}]);
        let doc = json!({"vulnerabilities": [item(base("CVE-2024-0001")), item(huge),
                                             item(base("CVE-2024-0002"))]});
        std::fs::write(&path, doc.to_string()).unwrap();
        let mut n = 0;
        let e = stream_file(&path, &mut |_| {
            n += 1;
            true
        })
        .unwrap_err();
        assert_eq!(n, 1);
        assert!(e.contains("larger than"), "{e}");

        std::fs::write(&path, b"[1, 2]").unwrap();
        assert!(stream_file(&path, &mut |_| true).is_err());
        std::fs::write(&path, b"{\"format\": \"NVD_CVE\"}").unwrap();
        assert!(stream_file(&path, &mut |_| true).is_err());
    }
}

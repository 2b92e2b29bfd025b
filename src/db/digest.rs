//! A content digest of the whole database, for checks that a request changed nothing (the
//! bad-input sweep compares one taken before with one taken after).
//!
//! Owns only reading every ordinary table; never writes.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use rusqlite::Connection;
use rusqlite::types::ValueRef;

use crate::error::Result;

/// One table's row count and a hash of its rows (independent of row order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableDigest {
    pub table: String,
    pub rows: i64,
    pub hash: u64,
}

/// The digest of every ordinary table (virtual tables are covered by their shadow tables),
/// leaving out the `(table, column)` pairs in `skip` (bookkeeping such as a key's last use).
pub fn digest(c: &Connection, skip: &[(&str, &str)]) -> Result<Vec<TableDigest>> {
    let mut st = c.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' \
         AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name",
    )?;
    let tables: Vec<String> = st
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut out = Vec::with_capacity(tables.len());
    for table in tables {
        let quoted = format!("\"{}\"", table.replace('"', "\"\""));
        let mut info = c.prepare(&format!("SELECT name FROM pragma_table_info('{}')", {
            table.replace('\'', "''")
        }))?;
        let columns: Vec<String> = info
            .query_map([], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?
            .into_iter()
            .filter(|col| !skip.contains(&(table.as_str(), col.as_str())))
            .collect();
        if columns.is_empty() {
            continue;
        }
        let list = columns
            .iter()
            .map(|col| format!("\"{}\"", col.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(", ");
        let mut rows_st = c.prepare(&format!("SELECT {list} FROM {quoted}"))?;
        let n = columns.len();
        let mut rows = rows_st.query([])?;
        let mut count = 0i64;
        let mut sum = 0u64;
        while let Some(r) = rows.next()? {
            let mut h = DefaultHasher::new();
            for i in 0..n {
                match r.get_ref(i)? {
                    ValueRef::Null => 0u8.hash(&mut h),
                    ValueRef::Integer(v) => (1u8, v).hash(&mut h),
                    ValueRef::Real(v) => (2u8, v.to_bits()).hash(&mut h),
                    ValueRef::Text(v) => (3u8, v).hash(&mut h),
                    ValueRef::Blob(v) => (4u8, v).hash(&mut h),
                }
            }
            count += 1;
            sum = sum.wrapping_add(h.finish());
        }
        out.push(TableDigest {
            table,
            rows: count,
            hash: sum,
        });
    }
    Ok(out)
}

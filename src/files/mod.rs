//! The file store behind the embedded document service: the bytes of every uploaded file,
//! apart from the tender records (a tender holds only a document's address and hash).
//!
//! Files live in memory by default. With a data directory each file is `<dir>/<key>` beside
//! its description `<dir>/<key>.json`, written through and synced before an upload is
//! acknowledged, and read back at start. Nothing is ever deleted: every version of a document
//! stays downloadable.

pub mod address;
pub mod signing;

// A file's key is an id as the service makes them: 32 lowercase hex digits, so never a path.
use crate::domain::ids::{hex, is_id as is_key, new_id as new_key};
use bytes::Bytes;
use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::RwLock;
use tokio::io::AsyncWriteExt;

/// What the store knows of one key.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Entry {
    /// The md5 (hex) a registration announced; the upload must match it.
    pub registered: Option<String>,
    pub content: Option<Content>,
}

/// A stored file's description.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Content {
    /// md5 of the bytes, lowercase hex.
    pub md5: String,
    /// The uploaded file name.
    pub title: String,
    /// The uploaded part's Content-Type.
    pub format: String,
    pub size: u64,
    /// The bytes, for a store in memory.
    #[serde(skip)]
    bytes: Option<Bytes>,
}

/// Why an upload was not stored.
#[derive(Debug)]
pub enum Refused {
    /// No registration under the key.
    Unknown,
    /// The key already has its content.
    AlreadyUploaded,
    /// The bytes' md5 differs from the registered hash.
    Checksum,
    /// The disk failed.
    Storage(io::Error),
}

pub struct Files {
    dir: Option<PathBuf>,
    entries: RwLock<HashMap<String, Entry>>,
}

impl Files {
    pub fn in_memory() -> Files {
        Files {
            dir: None,
            entries: RwLock::new(HashMap::new()),
        }
    }

    /// The store kept in `dir` (made if missing), with what it already holds.
    pub fn in_dir(dir: &Path) -> io::Result<Files> {
        std::fs::create_dir_all(dir)?;
        let mut entries = HashMap::new();
        for item in std::fs::read_dir(dir)? {
            let path = item?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.ends_with(".part") || name.ends_with(".tmp") {
                let _ = std::fs::remove_file(&path);
            } else if let Some(key) = name.strip_suffix(".json").filter(|k| is_key(k)) {
                let entry: Entry = serde_json::from_slice(&std::fs::read(&path)?)
                    .map_err(|e| io::Error::other(format!("{}: {e}", path.display())))?;
                entries.insert(key.to_string(), entry);
            }
        }
        Ok(Files {
            dir: Some(dir.to_path_buf()),
            entries: RwLock::new(entries),
        })
    }

    fn entries(&self) -> std::sync::RwLockReadGuard<'_, HashMap<String, Entry>> {
        self.entries.read().unwrap_or_else(|e| e.into_inner())
    }

    fn entries_mut(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<String, Entry>> {
        self.entries.write().unwrap_or_else(|e| e.into_inner())
    }

    pub fn get(&self, key: &str) -> Option<Entry> {
        self.entries().get(key).cloned()
    }

    /// Whether the store holds (or awaits) a file under `key`.
    pub fn knows(&self, key: &str) -> bool {
        self.entries().contains_key(key)
    }

    fn save(&self, key: &str, entry: &Entry) -> io::Result<()> {
        let Some(dir) = &self.dir else { return Ok(()) };
        let tmp = dir.join(format!("{key}.json.tmp"));
        let text = serde_json::to_vec(entry).map_err(io::Error::other)?;
        let mut file = std::fs::File::create(&tmp)?;
        io::Write::write_all(&mut file, &text)?;
        file.sync_all()?;
        std::fs::rename(&tmp, dir.join(format!("{key}.json")))
    }

    /// A new key awaiting content with the md5 `md5`.
    pub fn register(&self, md5: &str) -> io::Result<String> {
        let key = new_key();
        let entry = Entry {
            registered: Some(md5.to_ascii_lowercase()),
            content: None,
        };
        self.save(&key, &entry)?;
        self.entries_mut().insert(key.clone(), entry);
        Ok(key)
    }

    /// May content go under `key` (a registered key without content, or a new key)?
    pub fn may_upload(&self, key: Option<&str>) -> Result<(), Refused> {
        let Some(key) = key else { return Ok(()) };
        match self.entries().get(key) {
            None => Err(Refused::Unknown),
            Some(e) if e.content.is_some() => Err(Refused::AlreadyUploaded),
            Some(_) => Ok(()),
        }
    }

    /// Somewhere to stream an upload's bytes into.
    pub async fn sink(&self) -> io::Result<Sink> {
        let body = match &self.dir {
            None => SinkBody::Memory(Vec::new()),
            Some(dir) => {
                let path = dir.join(format!("{}.part", new_key()));
                let file = tokio::fs::File::create(&path).await?;
                SinkBody::File { file, path }
            }
        };
        Ok(Sink {
            md5: Md5::new(),
            size: 0,
            body,
        })
    }

    /// Stores a finished upload under `key` (a registered key), or under a new key; returns
    /// the key and the content's description.
    pub async fn commit(
        &self,
        key: Option<&str>,
        sink: Sink,
        title: &str,
        format: &str,
    ) -> Result<(String, Content), Refused> {
        self.may_upload(key)?;
        let registered = key.and_then(|k| self.get(k)).and_then(|e| e.registered);
        let (md5, size, body) = sink.finish();
        if registered.as_ref().is_some_and(|r| *r != md5) {
            return Err(Refused::Checksum);
        }
        let key = key.map_or_else(new_key, str::to_string);
        let bytes = match body {
            SinkBody::Memory(bytes) => Some(Bytes::from(bytes)),
            SinkBody::File { mut file, path } => {
                let stored = async {
                    file.flush().await?;
                    file.sync_all().await?;
                    drop(file);
                    let dir = self.dir.as_deref().unwrap_or(Path::new("."));
                    tokio::fs::rename(&path, dir.join(&key)).await
                }
                .await;
                if let Err(e) = stored {
                    let _ = std::fs::remove_file(&path);
                    return Err(Refused::Storage(e));
                }
                None
            }
        };
        let content = Content {
            md5,
            title: title.to_string(),
            format: format.to_string(),
            size,
            bytes,
        };
        let entry = Entry {
            registered,
            content: Some(content.clone()),
        };
        let mut entries = self.entries_mut();
        if entries.get(&key).is_some_and(|e| e.content.is_some()) {
            return Err(Refused::AlreadyUploaded);
        }
        self.save(&key, &entry).map_err(Refused::Storage)?;
        entries.insert(key.clone(), entry);
        Ok((key, content))
    }

    /// The bytes of a stored file.
    pub async fn read(&self, key: &str, content: &Content) -> io::Result<Bytes> {
        if let Some(bytes) = &content.bytes {
            return Ok(bytes.clone());
        }
        match &self.dir {
            Some(dir) if is_key(key) => tokio::fs::read(dir.join(key)).await.map(Bytes::from),
            _ => Err(io::Error::new(io::ErrorKind::NotFound, key.to_string())),
        }
    }
}

enum SinkBody {
    Memory(Vec<u8>),
    File {
        file: tokio::fs::File,
        path: PathBuf,
    },
}

/// An upload on its way in: its md5 and size are counted as the bytes pass.
pub struct Sink {
    md5: Md5,
    size: u64,
    body: SinkBody,
}

impl Sink {
    /// Bytes written so far.
    pub fn size(&self) -> u64 {
        self.size
    }

    pub async fn write(&mut self, chunk: &[u8]) -> io::Result<()> {
        self.md5.update(chunk);
        self.size += chunk.len() as u64;
        match &mut self.body {
            SinkBody::Memory(bytes) => {
                bytes.extend_from_slice(chunk);
                Ok(())
            }
            SinkBody::File { file, .. } => file.write_all(chunk).await,
        }
    }

    fn finish(mut self) -> (String, u64, SinkBody) {
        let md5 = hex(&std::mem::take(&mut self.md5).finalize());
        let body = std::mem::replace(&mut self.body, SinkBody::Memory(Vec::new()));
        (md5, self.size, body)
    }
}

impl Drop for Sink {
    /// An upload abandoned half way leaves no file behind.
    fn drop(&mut self) {
        if let SinkBody::File { path, .. } = &self.body {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn put(files: &Files, key: Option<&str>, bytes: &[u8]) -> Result<String, Refused> {
        let mut sink = files.sink().await.map_err(Refused::Storage)?;
        sink.write(bytes).await.map_err(Refused::Storage)?;
        files
            .commit(key, sink, "a.txt", "text/plain")
            .await
            .map(|(k, _)| k)
    }

    #[tokio::test]
    async fn files_in_a_directory_survive_a_restart() {
        let dir = tempfile::tempdir().expect("dir");
        let files = Files::in_dir(dir.path()).expect("store");
        let key = put(&files, None, b"hello").await.expect("stored");
        let registered = files
            .register("5d41402abc4b2a76b9719d911017c592")
            .expect("registered");
        assert!(matches!(
            put(&files, Some(&registered), b"other").await,
            Err(Refused::Checksum)
        ));
        put(&files, Some(&registered), b"hello")
            .await
            .expect("matches");
        assert!(matches!(
            put(&files, Some(&registered), b"hello").await,
            Err(Refused::AlreadyUploaded)
        ));
        let again = Files::in_dir(dir.path()).expect("reopened");
        let content = again.get(&key).and_then(|e| e.content).expect("content");
        assert_eq!(content.md5, "5d41402abc4b2a76b9719d911017c592");
        assert_eq!(
            again.read(&key, &content).await.expect("bytes").as_ref(),
            b"hello"
        );
        assert!(again.get(&registered).and_then(|e| e.content).is_some());
        let leftovers = std::fs::read_dir(dir.path())
            .expect("dir")
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".part"))
            })
            .count();
        assert_eq!(leftovers, 0);
    }
}

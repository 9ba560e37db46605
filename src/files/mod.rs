//! The file store behind the embedded document service: the bytes of every uploaded file,
//! apart from the tender records (a tender holds only a document's address and hash).
//!
//! Files live in memory by default. With a data directory each file is `<dir>/<key>` beside
//! its description `<dir>/<key>.json`, written through and synced before an upload is
//! acknowledged, and read back at start. Nothing is ever deleted: every version of a document
//! stays downloadable.
//!
//! Each file is counted against whoever put it there (a broker, or a user of the document
//! service): a registration or a new file against the one who made its key, its bytes against
//! the one who sent them. A file past the uploader's bounds is refused before it is kept.

pub mod address;
pub mod signing;

// A file's key is an id as the service makes them: 32 lowercase hex digits, so never a path.
use crate::domain::ids::{hex, is_id as is_key, new_id as new_key};
use crate::limits::Kind;
use bytes::Bytes;
use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::RwLock;
use tokio::io::AsyncWriteExt;

/// Who put a file in the store, which counts it against that one's bounds.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Uploader {
    /// A broker, by name.
    Broker(String),
    /// A user of the document service's own, by name.
    User(String),
}

/// What the store knows of one key.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Entry {
    /// The md5 (hex) a registration announced; the upload must match it.
    pub registered: Option<String>,
    pub content: Option<Content>,
    /// Who made the key (a registration, or an upload under a new key): the file counts
    /// against that one's files. None in a store written before files were counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uploader: Option<Uploader>,
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
    /// Who sent the bytes: they count against that one's bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uploader: Option<Uploader>,
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
    /// The uploader holds as many files (or bytes) as it may: `held` of `kind`, `most` at
    /// most, and the file would have added `adding`.
    Full {
        kind: Kind,
        held: u64,
        most: u64,
        adding: u64,
    },
}

/// What an uploader keeps in the store.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Held {
    pub files: u64,
    pub bytes: u64,
}

/// The most an uploader may keep (`None`: no bound).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bounds {
    pub files: Option<u64>,
    pub bytes: Option<u64>,
}

impl Bounds {
    /// Refused when `held` leaves no room for one more file.
    fn room_for_a_file(&self, held: &Held) -> Result<(), Refused> {
        match self.files {
            Some(most) if held.files >= most => Err(Refused::Full {
                kind: Kind::Uploads,
                held: held.files,
                most,
                adding: 1,
            }),
            _ => Ok(()),
        }
    }

    /// Refused when `held` leaves no room for `size` more bytes.
    fn room_for_bytes(&self, held: &Held, size: u64) -> Result<(), Refused> {
        match self.bytes {
            Some(most) if held.bytes.saturating_add(size) > most => Err(Refused::Full {
                kind: Kind::UploadBytes,
                held: held.bytes,
                most,
                adding: size,
            }),
            _ => Ok(()),
        }
    }
}

pub struct Files {
    dir: Option<PathBuf>,
    entries: RwLock<Kept>,
}

/// The entries by key, and what each uploader keeps among them.
#[derive(Default)]
struct Kept {
    map: HashMap<String, Entry>,
    held: HashMap<Uploader, Held>,
}

impl Kept {
    fn of(map: HashMap<String, Entry>) -> Kept {
        let mut held: HashMap<Uploader, Held> = HashMap::new();
        for entry in map.values() {
            if let Some(uploader) = &entry.uploader {
                held.entry(uploader.clone()).or_default().files += 1;
            }
            if let Some(content) = &entry.content
                && let Some(uploader) = &content.uploader
            {
                held.entry(uploader.clone()).or_default().bytes += content.size;
            }
        }
        Kept { map, held }
    }

    fn held(&self, uploader: &Uploader) -> Held {
        self.held.get(uploader).copied().unwrap_or_default()
    }

    fn held_mut(&mut self, uploader: &Uploader) -> &mut Held {
        self.held.entry(uploader.clone()).or_default()
    }
}

impl Files {
    pub fn in_memory() -> Files {
        Files {
            dir: None,
            entries: RwLock::new(Kept::default()),
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
            entries: RwLock::new(Kept::of(entries)),
        })
    }

    fn entries(&self) -> std::sync::RwLockReadGuard<'_, Kept> {
        self.entries.read().unwrap_or_else(|e| e.into_inner())
    }

    fn entries_mut(&self) -> std::sync::RwLockWriteGuard<'_, Kept> {
        self.entries.write().unwrap_or_else(|e| e.into_inner())
    }

    pub fn get(&self, key: &str) -> Option<Entry> {
        self.entries().map.get(key).cloned()
    }

    /// Whether the store holds (or awaits) a file under `key`.
    pub fn knows(&self, key: &str) -> bool {
        self.entries().map.contains_key(key)
    }

    /// What `uploader` keeps in the store.
    pub fn held(&self, uploader: &Uploader) -> Held {
        self.entries().held(uploader)
    }

    /// The bytes `uploader` may still send within `bounds` for a file under `key` (a
    /// registered key, or a new one: then a file of its own must fit too); refused when it
    /// has no room at all.
    pub fn room(
        &self,
        uploader: &Uploader,
        key: Option<&str>,
        bounds: &Bounds,
    ) -> Result<Option<u64>, Refused> {
        let kept = self.entries();
        let held = kept.held(uploader);
        if key.is_none() {
            bounds.room_for_a_file(&held)?;
        }
        bounds.room_for_bytes(&held, 0)?;
        Ok(bounds.bytes.map(|most| most.saturating_sub(held.bytes)))
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

    /// A new key of `uploader` awaiting content with the md5 `md5`: a file of its, within
    /// `bounds`.
    pub fn register(
        &self,
        md5: &str,
        uploader: &Uploader,
        bounds: &Bounds,
    ) -> Result<String, Refused> {
        let key = new_key();
        let entry = Entry {
            registered: Some(md5.to_ascii_lowercase()),
            content: None,
            uploader: Some(uploader.clone()),
        };
        // The file's place is taken before the description is written (outside the lock), and
        // given back if it cannot be.
        {
            let mut kept = self.entries_mut();
            bounds.room_for_a_file(&kept.held(uploader))?;
            kept.held_mut(uploader).files += 1;
        }
        if let Err(e) = self.save(&key, &entry) {
            let mut kept = self.entries_mut();
            let held = kept.held_mut(uploader);
            held.files = held.files.saturating_sub(1);
            return Err(Refused::Storage(e));
        }
        self.entries_mut().map.insert(key.clone(), entry);
        Ok(key)
    }

    /// May content go under `key` (a registered key without content, or a new key)?
    pub fn may_upload(&self, key: Option<&str>) -> Result<(), Refused> {
        let Some(key) = key else { return Ok(()) };
        match self.entries().map.get(key) {
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

    /// Stores a finished upload of `uploader` under `key` (a registered key), or under a new
    /// key, within `bounds`; returns the key and the content's description.
    pub async fn commit(
        &self,
        key: Option<&str>,
        sink: Sink,
        title: &str,
        format: &str,
        uploader: &Uploader,
        bounds: &Bounds,
    ) -> Result<(String, Content), Refused> {
        self.may_upload(key)?;
        let existing = key.and_then(|k| self.get(k));
        let registered = existing.as_ref().and_then(|e| e.registered.clone());
        // A registered key is its registrant's file already; a new key is the uploader's.
        let maker = match &existing {
            Some(entry) => entry.uploader.clone(),
            None => Some(uploader.clone()),
        };
        let new_file = key.is_none();
        let (md5, size, body) = sink.finish();
        let checked = if registered.as_ref().is_some_and(|r| *r != md5) {
            Err(Refused::Checksum)
        } else {
            let kept = self.entries();
            let held = kept.held(uploader);
            match new_file {
                true => bounds.room_for_a_file(&held),
                false => Ok(()),
            }
            .and_then(|()| bounds.room_for_bytes(&held, size))
        };
        if let Err(refused) = checked {
            body.discard();
            return Err(refused);
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
            uploader: Some(uploader.clone()),
            bytes,
        };
        let entry = Entry {
            registered,
            content: Some(content.clone()),
            uploader: maker,
        };
        let mut kept = self.entries_mut();
        // Checked again under the lock, where it is counted: another upload may have taken
        // the room meanwhile.
        let held = kept.held(uploader);
        let within = match new_file {
            true => bounds.room_for_a_file(&held),
            false => Ok(()),
        }
        .and_then(|()| bounds.room_for_bytes(&held, size));
        let refused = match within {
            Err(refused) => Some(refused),
            Ok(()) if kept.map.get(&key).is_some_and(|e| e.content.is_some()) => {
                Some(Refused::AlreadyUploaded)
            }
            Ok(()) => None,
        };
        if let Some(refused) = refused {
            let stored = kept.map.get(&key).is_some_and(|e| e.content.is_some());
            drop(kept);
            if !stored {
                self.forget_bytes(&key);
            }
            return Err(refused);
        }
        self.save(&key, &entry).map_err(Refused::Storage)?;
        kept.map.insert(key.clone(), entry);
        let held = kept.held_mut(uploader);
        held.files += u64::from(new_file);
        held.bytes += size;
        Ok((key, content))
    }

    /// Removes the bytes a refused upload left under `key` in the directory, where no kept
    /// file has them.
    fn forget_bytes(&self, key: &str) {
        if let Some(dir) = &self.dir
            && is_key(key)
        {
            let _ = std::fs::remove_file(dir.join(key));
        }
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

impl SinkBody {
    /// Lets go of bytes that will not be kept, leaving no file behind.
    fn discard(self) {
        if let SinkBody::File { file, path } = self {
            drop(file);
            let _ = std::fs::remove_file(path);
        }
    }
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
        let uploader = Uploader::Broker("broker".into());
        files
            .commit(
                key,
                sink,
                "a.txt",
                "text/plain",
                &uploader,
                &Bounds::default(),
            )
            .await
            .map(|(k, _)| k)
    }

    #[tokio::test]
    async fn files_in_a_directory_survive_a_restart() {
        let dir = tempfile::tempdir().expect("dir");
        let files = Files::in_dir(dir.path()).expect("store");
        let key = put(&files, None, b"hello").await.expect("stored");
        let uploader = Uploader::Broker("broker".into());
        let registered = files
            .register(
                "5d41402abc4b2a76b9719d911017c592",
                &uploader,
                &Bounds::default(),
            )
            .map_err(|_| "not registered")
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

    #[tokio::test]
    async fn each_uploader_keeps_files_and_bytes_within_its_bounds_across_a_restart() {
        let dir = tempfile::tempdir().expect("dir");
        let files = Files::in_dir(dir.path()).expect("store");
        let (acme, beta) = (
            Uploader::Broker("acme".into()),
            Uploader::User("beta".into()),
        );
        let bounds = Bounds {
            files: Some(2),
            bytes: Some(8),
        };
        let put_as = |who: &Uploader, key: Option<String>, bytes: &'static [u8]| {
            let (files, who) = (&files, who.clone());
            async move {
                let mut sink = files.sink().await.map_err(Refused::Storage)?;
                sink.write(bytes).await.map_err(Refused::Storage)?;
                files
                    .commit(key.as_deref(), sink, "a.txt", "text/plain", &who, &bounds)
                    .await
                    .map(|(k, _)| k)
            }
        };
        put_as(&acme, None, b"hello")
            .await
            .map_err(|_| "stored")
            .expect("within");
        // A file that would pass the bytes is refused, and leaves nothing behind.
        let refused = put_as(&acme, None, b"world").await;
        assert!(
            matches!(
                refused,
                Err(Refused::Full {
                    kind: Kind::UploadBytes,
                    held: 5,
                    most: 8,
                    adding: 5
                })
            ),
            "{refused:?}"
        );
        let kept_files = || {
            std::fs::read_dir(dir.path())
                .expect("dir")
                .filter(|e| {
                    e.as_ref()
                        .is_ok_and(|e| !e.file_name().to_string_lossy().ends_with(".json"))
                })
                .count()
        };
        assert_eq!(kept_files(), 1);
        // A registration is a file of its registrant's: the second and last.
        let key = files
            .register("900150983cd24fb0d6963f7d28e17f72", &acme, &bounds)
            .map_err(|_| "registered")
            .expect("a second file");
        assert!(matches!(
            files.register("900150983cd24fb0d6963f7d28e17f72", &acme, &bounds),
            Err(Refused::Full {
                kind: Kind::Uploads,
                held: 2,
                most: 2,
                adding: 1
            })
        ));
        assert!(matches!(
            files.room(&acme, None, &bounds),
            Err(Refused::Full {
                kind: Kind::Uploads,
                ..
            })
        ));
        assert_eq!(files.room(&acme, Some(&key), &bounds).ok(), Some(Some(3)));
        put_as(&acme, Some(key), b"abc")
            .await
            .map_err(|_| "stored")
            .expect("its content fits");
        assert_eq!(files.held(&acme), Held { files: 2, bytes: 8 });
        assert_eq!(files.held(&beta), Held::default(), "each uploader apart");
        put_as(&beta, None, b"other")
            .await
            .map_err(|_| "stored")
            .expect("another's room");

        let again = Files::in_dir(dir.path()).expect("reopened");
        assert_eq!(again.held(&acme), Held { files: 2, bytes: 8 });
        assert_eq!(again.held(&beta), Held { files: 1, bytes: 5 });
    }
}

//! Writing results: atomically (temp file + rename), so a failed compile leaves no partial file
//! and never clobbers an existing one.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Write `bytes` to `path` atomically: into a temporary file in the same directory, flushed and
/// synced, then renamed over `path`. On any error the temporary file is removed.
///
/// Only regular files are replaced that way. A device, FIFO or socket (`-o /dev/null`,
/// `-o /dev/stdout`) is written in place, and a symbolic link is followed, so the link stays and
/// its target gets the new contents.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let path = resolve_links(path)?;
    if std::fs::metadata(&path).is_ok_and(|m| !m.is_file()) {
        return std::fs::OpenOptions::new()
            .write(true)
            .open(&path)?
            .write_all(bytes);
    }
    replace_file(&path, bytes)
}

/// The path a chain of symbolic links ends at (the path itself when it is not a link).
fn resolve_links(path: &Path) -> std::io::Result<PathBuf> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        std::fs::canonicalize(path)
    } else {
        Ok(path.to_path_buf())
    }
}

fn replace_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.ptoc-{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_file_and_leaves_no_temp() {
        let dir = std::env::temp_dir().join(format!("ptoc-out-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.bin");
        write_atomically(&path, b"first").unwrap();
        write_atomically(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        // A directory that does not exist: an error, and nothing created.
        assert!(write_atomically(&dir.join("missing/y.bin"), b"z").is_err());
        // A link keeps being a link; its target gets the bytes.
        let link = dir.join("link.bin");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        write_atomically(&link, b"third").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&path).unwrap(), b"third");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn devices_are_written_in_place() {
        write_atomically(Path::new("/dev/null"), b"discarded").unwrap();
        let meta = std::fs::metadata("/dev/null").unwrap();
        assert!(!meta.is_file(), "/dev/null must stay a device");
    }
}

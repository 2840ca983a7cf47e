//! Writing results: atomically (a fresh temporary file renamed over the target), so a failed
//! compile leaves no partial file and never clobbers an existing one.

use std::fs::Permissions;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Write `bytes` to `path` atomically: into a temporary file in the same directory, created
/// exclusively under an unpredictable name (so nothing planted there can receive the bytes),
/// flushed and synced, then renamed over `path`. On any error the temporary file is removed.
/// A replaced file keeps its permissions; a new one gets `0666` less the umask, as `open` gives.
///
/// Only regular files are replaced that way. A device, FIFO or socket (`-o /dev/null`,
/// `-o /dev/stdout`) is written in place, and a symbolic link is followed, so the link stays and
/// its target gets the new contents.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let path = resolve_links(path)?;
    match std::fs::metadata(&path) {
        Ok(meta) if !meta.is_file() => std::fs::OpenOptions::new()
            .write(true)
            .open(&path)?
            .write_all(bytes),
        Ok(meta) => replace_file(&path, bytes, Some(meta.permissions())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => replace_file(&path, bytes, None),
        Err(e) => Err(e),
    }
}

/// The path a chain of symbolic links ends at (the path itself when it is not a link).
fn resolve_links(path: &Path) -> std::io::Result<PathBuf> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        std::fs::canonicalize(path)
    } else {
        Ok(path.to_path_buf())
    }
}

fn replace_file(path: &Path, bytes: &[u8], keep: Option<Permissions>) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    // `O_CREAT | O_EXCL` with a random name; the mode is subject to the umask like any new file.
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".ptoc-tmp")
        .permissions(Permissions::from_mode(0o666))
        .tempfile_in(dir)?;
    if let Some(permissions) = keep {
        tmp.as_file().set_permissions(permissions)?;
    }
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    // On failure the returned error owns the temporary file, and dropping it removes the file.
    tmp.persist(path).map(drop).map_err(|e| e.error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_file_and_leaves_no_temp() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
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
    }

    /// The temporary file used to be `DIR/.NAME.ptoc-<pid>.tmp`, opened without `O_EXCL`: a
    /// symbolic link planted at that name received the bytes and became the output itself.
    #[test]
    fn planted_links_at_predictable_names_are_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let out = dir.path().join("out.bin");
        let old_name = dir
            .path()
            .join(format!(".out.bin.ptoc-{}.tmp", std::process::id()));
        std::os::unix::fs::symlink(&victim, &old_name).unwrap();
        write_atomically(&out, b"object").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert!(std::fs::symlink_metadata(&out)
            .unwrap()
            .file_type()
            .is_file());
        assert_eq!(std::fs::read(&out).unwrap(), b"object");
        // Nothing is left besides the output, the victim and the planted link.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
    }

    #[test]
    fn a_replaced_file_keeps_its_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.bin");
        for mode in [0o640, 0o604, 0o777] {
            std::fs::write(&out, b"old").unwrap();
            std::fs::set_permissions(&out, Permissions::from_mode(mode)).unwrap();
            write_atomically(&out, b"new").unwrap();
            let meta = std::fs::metadata(&out).unwrap();
            assert_eq!(meta.permissions().mode() & 0o7777, mode);
            assert_eq!(std::fs::read(&out).unwrap(), b"new");
        }
        // A new file: 0666 less the umask, as `File::create` gives.
        let plain = dir.path().join("plain");
        std::fs::File::create(&plain).unwrap();
        let fresh = dir.path().join("fresh.bin");
        write_atomically(&fresh, b"x").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode(&fresh), mode(&plain));
    }

    #[test]
    fn devices_are_written_in_place() {
        write_atomically(Path::new("/dev/null"), b"discarded").unwrap();
        let meta = std::fs::metadata("/dev/null").unwrap();
        assert!(!meta.is_file(), "/dev/null must stay a device");
    }
}

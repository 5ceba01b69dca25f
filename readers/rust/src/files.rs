//! Reading hostile trees: regular files only, bounded, never blocking (files.py).
//!
//! Opening a FIFO must not block, a device or a symlink to `/dev/zero` must not be read to the
//! end, and a file that grows while it is read must not exhaust memory.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

/// Why a file could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// Nothing at the path (ENOENT).
    NotFound,
    /// A FIFO, device, directory or socket; the word names it.
    NotRegular(&'static str),
    /// Larger than the cap.
    TooLarge,
    /// Any other failure of the system.
    Io(io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotFound => f.write_str("no such file"),
            ReadError::NotRegular(kind) => write!(f, "is {}, not a regular file", kind),
            ReadError::TooLarge => f.write_str("exceeds the size cap"),
            ReadError::Io(e) => write!(f, "{}", e),
        }
    }
}

/// The bytes of a regular file of at most `cap` bytes (symlinks followed, as the Python reader does).
///
/// O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer; the fstat of
/// the open descriptor then refuses it, so nothing can swap the file between check and read.
pub fn read_regular(path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    read_regular_seen(path, cap).map(|(data, _)| data)
}

/// `read_regular`, with the `fstat` of the descriptor it read: what a handle remembers of an
/// index to notice a newer one (docs/format.md §6.4), or what a walk compares with its `lstat`.
pub fn read_regular_seen(path: &Path, cap: u64) -> Result<(Vec<u8>, Metadata), ReadError> {
    let file = open_nonblocking(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => ReadError::NotFound,
        _ => ReadError::Io(e),
    })?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.file_type().is_file() {
        return Err(ReadError::NotRegular(kind(&meta.file_type())));
    }
    if meta.len() > cap {
        return Err(ReadError::TooLarge);
    }
    // One byte more than allowed tells a file that grew past the cap since the fstat.
    let mut data = Vec::with_capacity(meta.len().min(1 << 20) as usize);
    file.take(cap.saturating_add(1)).read_to_end(&mut data).map_err(ReadError::Io)?;
    if data.len() as u64 > cap {
        return Err(ReadError::TooLarge);
    }
    Ok((data, meta))
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    const O_NONBLOCK: i32 = nonblock_flag();
    OpenOptions::new().read(true).custom_flags(O_NONBLOCK).open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    OpenOptions::new().read(true).open(path)
}

/// O_NONBLOCK without the libc crate: its value on the systems Rust's std supports.
#[cfg(unix)]
const fn nonblock_flag() -> i32 {
    if cfg!(any(target_os = "linux", target_os = "android")) {
        if cfg!(any(target_arch = "mips", target_arch = "mips64")) {
            0x80
        } else if cfg!(any(target_arch = "sparc", target_arch = "sparc64")) {
            0x4000
        } else {
            0o4000
        }
    } else if cfg!(target_os = "solaris") || cfg!(target_os = "illumos") {
        0x80
    } else {
        0x4 // macOS, iOS and the BSDs
    }
}

fn kind(ft: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO";
        }
        if ft.is_char_device() || ft.is_block_device() {
            return "a device";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    if ft.is_dir() {
        "a directory"
    } else if ft.is_symlink() {
        "a symlink"
    } else {
        "not a regular file"
    }
}

/// `os.path.abspath`: joined to the working directory and normalised lexically (no symlink is
/// resolved, `..` removes the component before it).
pub fn absolute(path: &Path) -> io::Result<PathBuf> {
    let joined = if path.is_absolute() { path.to_path_buf() } else { std::env::current_dir()?.join(path) };
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Ok(out)
}

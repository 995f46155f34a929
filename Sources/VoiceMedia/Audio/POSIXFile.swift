#if canImport(Glibc)
    import Glibc
#endif

/// A file descriptor with typed errors, for the WAV reader and writer.
///
/// Not thread-safe: one owner uses it at a time.
final class POSIXFile {
    private(set) var fd: Int32
    let path: String

    /// Opens `path` for writing, creating or truncating it (mode 0644).
    init(creating path: String) throws(WAVFileError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw WAVFileError.io(errno: errno, operation: "open", path: path) }
        self.fd = fd
        self.path = path
    }

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close() }

    /// Closes the descriptor. Idempotent.
    func close() {
        if fd >= 0 {
            _ = Glibc.close(fd)
            fd = -1
        }
    }

    /// Writes all of `bytes` at the current position, retrying short writes and `EINTR`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(WAVFileError) {
        guard var p = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = Glibc.write(fd, p, left)
            if n < 0 {
                if errno == EINTR { continue }
                throw WAVFileError.io(errno: errno, operation: "write", path: path)
            }
            p += n
            left -= n
        }
    }

    /// Writes all of `bytes` at absolute file `offset` without moving the position.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(WAVFileError) {
        guard var p = bytes.baseAddress else { return }
        var left = bytes.count
        var at = off_t(offset)
        while left > 0 {
            let n = pwrite(fd, p, left, at)
            if n < 0 {
                if errno == EINTR { continue }
                throw WAVFileError.io(errno: errno, operation: "pwrite", path: path)
            }
            p += n
            left -= n
            at += off_t(n)
        }
    }

    /// Reads the whole file at `path`.
    static func readAll(path: String) throws(WAVFileError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw WAVFileError.io(errno: errno, operation: "open", path: path) }
        let file = POSIXFile(fd: fd, path: path)
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw WAVFileError.io(errno: errno, operation: "stat", path: path) }
        var bytes = [UInt8](repeating: 0, count: max(0, Int(st.st_size)))
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { raw in
                read(file.fd, raw.baseAddress.map { $0 + filled }, raw.count - filled)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw WAVFileError.io(errno: errno, operation: "read", path: path)
            }
            if n == 0 { break }  // The file shrank while reading.
            filled += n
        }
        bytes.removeLast(bytes.count - filled)
        return bytes
    }
}

import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// Process-wide CPU time and resident memory.
enum ProcessFigures {
    /// User + system CPU time of the whole process, in seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// CPU time of the calling thread, in seconds.
    static func threadCPUSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Resident set size in KiB, from /proc/self/statm.
    static func residentKiB() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1024
    }
}

/// Flushes standard output so progress lines appear while a long measurement runs.
func flushOutput() {
    fflush(nil)
}

/// Ends a run: a blank line, then one `name: value` line per figure.
func printFigures(_ figures: [(String, String)]) {
    print("")
    for (name, value) in figures { print("\(name): \(value)") }
}

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

    /// CPU seconds of each of the process's threads so far, summed by thread name (digits
    /// dropped, so a pool's workers are one entry), from /proc/self/task.
    static func cpuSecondsByThread() -> [String: (user: Double, system: Double)] {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var byName: [String: (user: Double, system: Double)] = [:]
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return byName }
        for task in tasks {
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After the name: state, then 10 fields, then utime and stime (fields 14 and 15).
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? "?"
            let name = String(comm.trimmingCharacters(in: .whitespacesAndNewlines).filter { !$0.isNumber })
            byName[name, default: (0, 0)].user += user / ticks
            byName[name, default: (0, 0)].system += system / ticks
        }
        return byName
    }

    /// The CPU each thread kind spent between two ``cpuSecondsByThread()`` readings over
    /// `seconds`, as "name NN% (system MM%)" sorted by share, the largest first.
    static func threadShares(
        from before: [String: (user: Double, system: Double)], to after: [String: (user: Double, system: Double)], seconds: Double
    ) -> String {
        var rows: [(name: String, total: Double, system: Double)] = []
        let span = max(seconds, 0.001)
        for (name, now) in after {
            let earlier = before[name] ?? (0, 0)
            let user: Double = (now.user - earlier.user) / span
            let system: Double = (now.system - earlier.system) / span
            if user + system >= 0.005 { rows.append((name, user + system, system)) }
        }
        rows.sort { $0.total > $1.total }
        return rows.map { String(format: "%@ %.0f%% (system %.0f%%)", $0.name, $0.total * 100, $0.system * 100) }
        .joined(separator: ", ")
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

import Foundation
import VoiceFuzzing

// Built two ways. `scripts/fuzz.sh` builds it with `-sanitize=fuzzer,address` and
// `-DVOICE_FUZZING`: libFuzzer's main drives the harness named by VOICE_FUZZ_TARGET. A plain
// build is a replayer: `voice-fuzz TARGET FILE...` runs files (a corpus, a crash) through a
// harness once, e.g. to check a fix without the sanitizer build.

#if VOICE_FUZZING
    nonisolated(unsafe) private var selected: FuzzHarness?

    @_cdecl("LLVMFuzzerInitialize")
    public func fuzzerInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
        let name = ProcessInfo.processInfo.environment["VOICE_FUZZ_TARGET"] ?? ""
        guard let harness = FuzzHarness.named(name) else {
            FileHandle.standardError.write(Data("VOICE_FUZZ_TARGET must name a harness: \(FuzzHarness.all.map(\.name).joined(separator: ", "))\n".utf8))
            exit(2)
        }
        selected = harness
        return 0
    }

    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        selected?.run(bytes)
        return 0
    }
#else
    @main
    struct FuzzReplay {
        static func main() {
            let arguments = Array(CommandLine.arguments.dropFirst())
            guard let name = arguments.first, let harness = FuzzHarness.named(name) else {
                print("usage: voice-fuzz TARGET FILE|DIRECTORY...\ntargets:")
                for harness in FuzzHarness.all { print("  \(harness.name): \(harness.summary)") }
                exit(2)
            }
            var count = 0
            for path in arguments.dropFirst() {
                for file in files(at: path) {
                    guard let data = FileManager.default.contents(atPath: file) else { continue }
                    harness.run(Array(data))
                    count += 1
                }
            }
            print("\(name): \(count) inputs ran clean")
        }

        static func files(at path: String) -> [String] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [] }
            guard isDirectory.boolValue else { return [path] }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            return names.sorted().map { path + "/" + $0 }
        }
    }
#endif

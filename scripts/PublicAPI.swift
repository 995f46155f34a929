// Prints the package's public API, one declaration per line, from the symbol graphs that
// `swift package dump-symbol-graph --minimum-access-level public` writes: module, kind, path and
// declaration. Synthesized members (protocol defaults, conformance witnesses) are left out.
// Usage: swift scripts/PublicAPI.swift SYMBOLGRAPH-DIRECTORY
import Foundation

/// Library targets: what an app can import (a product's modules and the lower modules it re-exports declarations from).
let modules = ["VoiceCore", "VoiceService", "VoiceConference", "VoiceMedia", "VoiceMediaTypes", "VoiceNetwork", "VoiceSIP", "VoiceSIPAgent", "VoiceSupport", "VoiceTestAudio", "VoiceTestKit"]

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: PublicAPI.swift SYMBOLGRAPH-DIRECTORY\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: CommandLine.arguments[1])
var lines: [String] = []
var counts: [String: Int] = [:]
for module in modules {
    let file = directory.appendingPathComponent("\(module).symbols.json")
    guard let data = try? Data(contentsOf: file),
        let graph = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let symbols = graph["symbols"] as? [[String: Any]]
    else {
        FileHandle.standardError.write(Data("cannot read \(file.path)\n".utf8))
        exit(1)
    }
    for symbol in symbols {
        guard let identifier = (symbol["identifier"] as? [String: Any])?["precise"] as? String,
            !identifier.contains("::SYNTHESIZED::"),
            let kind = (symbol["kind"] as? [String: Any])?["identifier"] as? String,
            let path = symbol["pathComponents"] as? [String],
            let fragments = symbol["declarationFragments"] as? [[String: Any]]
        else { continue }
        let declaration = fragments.compactMap { $0["spelling"] as? String }.joined()
            .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        lines.append("\(module) \(kind.replacingOccurrences(of: "swift.", with: "")) \(path.joined(separator: ".")): \(declaration)")
        counts[module, default: 0] += 1
    }
}
for line in lines.sorted() { print(line) }
FileHandle.standardError.write(
    Data(modules.map { "\($0): \(counts[$0] ?? 0) public declarations\n" }.joined().utf8))

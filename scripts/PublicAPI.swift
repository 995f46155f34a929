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

// What `import VoiceCore` brings into an app's scope: VoiceCore's own declarations, and those of
// the types it re-exports one by one (`@_exported import struct VoiceMedia.AudioFormat` in
// Sources/VoiceCore/VoiceCore.swift), with their members.
let scriptDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
let umbrella = scriptDirectory.appendingPathComponent("../Sources/VoiceCore/VoiceCore.swift")
var exported: Set<String> = []
if let text = try? String(contentsOf: umbrella, encoding: .utf8) {
    for line in text.split(separator: "\n") where line.hasPrefix("@_exported import ") {
        // `@_exported import <kind> <Module>.<Type>`, or `@_exported import <Module>` (everything).
        let words = line.split(separator: " ")
        guard let last = words.last else { continue }
        exported.insert(words.count >= 4 ? String(last) : String(last) + ".*")
    }
}
// A protocol requirement and its default implementation are two symbols with the same line (the
// same name and declaration); an app sees one method, so each distinct line counts once.
let distinct = Array(Set(lines))
var reexported = 0
for line in distinct {
    let words = line.split(separator: " ", maxSplits: 3)
    guard words.count >= 3, words[0] != "VoiceCore" else { continue }
    let module = String(words[0])
    let path = words[2].split(separator: ":").first.map(String.init) ?? ""
    let type = path.split(separator: ".").first.map(String.init) ?? ""
    if exported.contains("\(module).\(type)") || exported.contains("\(module).*") { reexported += 1 }
}
let own = distinct.filter { $0.hasPrefix("VoiceCore ") }.count
FileHandle.standardError.write(
    Data("import VoiceCore shows \(own + reexported) declarations: VoiceCore's \(own), re-exported \(reexported)\n".utf8))

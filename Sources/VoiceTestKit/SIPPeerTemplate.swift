import Foundation

/// Fills `@@NAME@@` placeholders in a peer configuration template and manages the temporary
/// directories peers run in.
package enum SIPPeerTemplate {
    /// The largest template read, so a wrong path cannot pull in a huge file.
    package static let maximumTemplateSize = 256 * 1024

    /// Replaces every `@@KEY@@` in `template` with `values[KEY]`.
    /// - Throws: ``SIPPeerError/Kind/invalidTemplate`` naming any placeholder left unfilled.
    package static func render(_ template: String, values: [String: String]) throws(SIPPeerError) -> String {
        var text = template
        for (key, value) in values { text = text.replacingOccurrences(of: "@@\(key)@@", with: value) }
        if let start = text.range(of: "@@"), let end = text.range(of: "@@", range: start.upperBound..<text.endIndex) {
            let name = text[start.upperBound..<end.lowerBound]
            throw SIPPeerError(.invalidTemplate, "placeholder @@\(name)@@ has no value")
        }
        return text
    }

    /// Reads the template at `path` (bounded by ``maximumTemplateSize``), fills it, writes it to `destination`.
    package static func renderFile(_ path: String, to destination: String, values: [String: String]) throws(SIPPeerError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SIPPeerError(.invalidTemplate, "cannot read template \(path)")
        }
        guard data.count <= maximumTemplateSize else {
            throw SIPPeerError(.invalidTemplate, "template \(path) is \(data.count) bytes, over \(maximumTemplateSize)")
        }
        let text = try render(String(decoding: data, as: UTF8.self), values: values)
        guard FileManager.default.createFile(atPath: destination, contents: Data(text.utf8)) else {
            throw SIPPeerError(.fileSystem, "cannot write \(destination)")
        }
    }

    /// Checks that `value` holds only characters safe inside a config line or quoted string
    /// (letters, digits and `-._~+/=:@,`), so a value cannot inject configuration.
    package static func validate(_ value: String, as what: String) throws(SIPPeerError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~+/=:@,_")
        guard !value.isEmpty, value.count <= 256, value.allSatisfy({ allowed.contains($0) }) else {
            throw SIPPeerError(.invalidValue, "\(what) \"\(value)\" is empty, too long or has unsafe characters")
        }
    }

    /// Creates a fresh directory under the system temporary directory, named after `prefix`.
    package static func makeTemporaryDirectory(prefix: String) throws(SIPPeerError) -> String {
        var template = Array((NSTemporaryDirectory() + "/\(prefix)-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
        guard made != nil else { throw SIPPeerError(.fileSystem, "mkdtemp failed for \(prefix)") }
        let bytes = template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

import Foundation
import VoiceRTP

/// SDP text rewrites that put an impairment proxy between us and a WebRTC peer: each side then
/// knows only the proxy's address for the other, so every packet crosses it.
package enum SDPCandidateRewrite {
    /// Our offer with our media port replaced by `port` in the `m=` line and our candidates.
    package static func ourPort(_ ours: UInt16, becomes port: UInt16, in sdp: String) -> String {
        lines(sdp).map { line in
            if line.hasPrefix("m=audio \(ours) ") { return "m=audio \(port) " + line.dropFirst("m=audio \(ours) ".count) }
            if line.hasPrefix("a=candidate:") { return line.replacingOccurrences(of: " \(ours) typ ", with: " \(port) typ ") }
            return line
        }.joined(separator: "\r\n") + "\r\n"
    }

    /// The peer's answer with its first IPv4 UDP candidate replaced by `proxy` (its others
    /// removed), and that candidate's address.
    package static func theirCandidate(in sdp: String, becomes proxy: SocketAddress) -> (String, SocketAddress)? {
        var found: SocketAddress?
        var out: [String] = []
        for line in lines(sdp) {
            guard line.hasPrefix("a=candidate:") else {
                out.append(line)
                continue
            }
            var fields = line.split(separator: " ").map(String.init)
            guard found == nil, fields.count >= 8, fields[2].lowercased() == "udp", !fields[4].contains(":"),
                let port = Int(fields[5]), let address = try? SocketAddress(host: fields[4], port: port)
            else { continue }
            found = address
            fields[4] = "127.0.0.1"
            fields[5] = String(proxy.port)
            out.append(fields.joined(separator: " "))
        }
        guard let found else { return nil }
        return (out.joined(separator: "\r\n") + "\r\n", found)
    }

    private static func lines(_ sdp: String) -> [String] {
        sdp.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }).map(String.init)
    }
}

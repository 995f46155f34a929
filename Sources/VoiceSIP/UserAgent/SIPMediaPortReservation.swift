import VoiceMedia

/// Finds a free local UDP port for a call's RTP before the SDP is written: binds port 0 on the
/// media address, reads the port the kernel chose, and closes the socket again so the media
/// stream can bind it once the codec and keys are negotiated. Another process could take the
/// port in between; the kernel hands out ephemeral ports in a way that makes that unlikely.
enum SIPMediaPortReservation {
    static func reserve(host: String) throws(SIPUserAgentError) -> UInt16 {
        do {
            let socket = try UDPSocket(bindTo: try SocketAddress(host: host, port: 0))
            let port = socket.localAddress.port
            socket.close()
            guard let value = UInt16(exactly: port), value != 0 else { throw SIPUserAgentError.noMediaPort("port \(port)") }
            return value
        } catch let error as SIPUserAgentError {
            throw error
        } catch {
            throw .noMediaPort("\(host): \(error)")
        }
    }
}

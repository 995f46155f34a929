import CLibSRTP
import VoiceSupport
import VoiceMediaTypes

/// Process-wide libsrtp state: one `srtp_init()` and the set of suites the build supports.
enum SRTPLibrary {
    /// Raw `srtp_err_status_t` of the one `srtp_init()` call. Swift runs a global's initializer
    /// exactly once, thread-safely, on first access.
    private static let initializationStatus: UInt32 = srtp_init().rawValue

    /// Runs `srtp_init()` on first use and reports its failure, if any, on every call.
    static func initialize() throws(SRTPError) {
        try SRTPError.check(srtp_err_status_t(rawValue: initializationStatus))
        _ = cryptoAnchor
    }

    /// A libsrtp session nobody uses, kept for the life of the process. Debian's libsrtp2 is
    /// built on NSS: every cipher it allocates opens an NSS context, and closing the last one
    /// shuts NSS down and unloads its soft token, so without an anchor each call's first
    /// session loads NSS again (about 2 ms of dynamic linking, measured by `voice-bench setup`)
    /// and its last one unloads it. Harmless with other crypto backends.
    private static let cryptoAnchor: CryptoAnchor = {
        var context: srtp_t?
        let keys = SRTPKeyMaterial(
            unchecked: .aesCM128HmacSHA1_80, keyAndSalt: [UInt8](repeating: 0, count: SRTPSuite.aesCM128HmacSHA1_80.keyMaterialLength))
        let status = createContext(&context, direction: ssrc_any_outbound, keys: keys, configuration: .init())
        return CryptoAnchor(context: status == srtp_err_status_ok ? context : nil)
    }()

    private struct CryptoAnchor: @unchecked Sendable {  // created once, never used or freed
        let context: srtp_t?
    }

    /// Suites for which libsrtp accepted a session, probed once with throwaway all-zero keys.
    static let availableSuites: Set<SRTPSuite> = {
        guard (try? initialize()) != nil else { return [] }
        var found = Set<SRTPSuite>()
        for suite in SRTPSuite.allCases {
            let probe = SRTPKeyMaterial(unchecked: suite, keyAndSalt: [UInt8](repeating: 0, count: suite.keyMaterialLength))
            var context: srtp_t?
            let status = createContext(&context, direction: ssrc_any_outbound, keys: probe, configuration: .init())
            if status == srtp_err_status_ok, context != nil { found.insert(suite) }
            if let context { srtp_dealloc(context) }
        }
        return found
    }()

    /// Creates a libsrtp session holding one wildcard stream (`ssrc_any_outbound` or
    /// `ssrc_any_inbound`; libsrtp allows one wildcard per session) keyed with `keys`. Key bytes
    /// are copied into scratch memory that is wiped before returning; libsrtp keeps only the
    /// derived session keys.
    static func createContext(
        _ context: inout srtp_t?,
        direction: srtp_ssrc_type_t,
        keys: SRTPKeyMaterial,
        configuration: SRTPSession.Configuration
    ) -> srtp_err_status_t {
        withPolicy(keys, ssrcType: direction, configuration) { policy in
            srtp_create(&context, policy)
        }
    }

    /// An inbound context whose stream for `ssrc` starts at rollover counter `rollover` (for a
    /// sender first heard after it wrapped its sequence number), beside the `ssrc_any_inbound`
    /// template for other SSRCs.
    static func createInboundContext(
        _ context: inout srtp_t?, ssrc: UInt32, rollover: UInt32, keys: SRTPKeyMaterial, configuration: SRTPSession.Configuration
    ) -> srtp_err_status_t {
        var status = createContext(&context, direction: ssrc_any_inbound, keys: keys, configuration: configuration)
        guard status == srtp_err_status_ok, let session = context else { return status }
        status = withPolicy(keys, ssrcType: ssrc_specific, configuration) { policy in
            policy.pointee.ssrc.value = ssrc
            return srtp_add_stream(session, policy)
        }
        if status == srtp_err_status_ok { status = srtp_set_stream_roc(session, ssrc, rollover) }
        if status != srtp_err_status_ok {
            srtp_dealloc(session)
            context = nil
        }
        return status
    }

    private static func withPolicy(
        _ material: SRTPKeyMaterial,
        ssrcType: srtp_ssrc_type_t,
        _ configuration: SRTPSession.Configuration,
        _ body: (UnsafeMutablePointer<srtp_policy_t>) -> srtp_err_status_t
    ) -> srtp_err_status_t {
        let key = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(material.keyAndSalt.count, 1))
        _ = key.initialize(from: material.keyAndSalt)
        let mkiBytes = material.mki?.bytes ?? []
        let mki = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(mkiBytes.count, 1))
        _ = mki.initialize(from: mkiBytes)
        let masterKey = UnsafeMutablePointer<srtp_master_key_t>.allocate(capacity: 1)
        let masterKeys = UnsafeMutablePointer<UnsafeMutablePointer<srtp_master_key_t>?>.allocate(capacity: 1)
        let policy = UnsafeMutablePointer<srtp_policy_t>.allocate(capacity: 1)
        defer {
            for i in key.indices { key[i] = 0 }
            key.deallocate()
            mki.deallocate()
            masterKey.deallocate()
            masterKeys.deallocate()
            policy.deallocate()
        }

        policy.initialize(to: srtp_policy_t())
        policy.pointee.ssrc = srtp_ssrc_t(type: ssrcType, value: 0)
        material.suite.configure(rtp: &policy.pointee.rtp, rtcp: &policy.pointee.rtcp)
        if material.mki != nil {
            masterKey.initialize(
                to: srtp_master_key_t(
                    key: key.baseAddress, mki_id: mki.baseAddress, mki_size: UInt32(mkiBytes.count)))
            masterKeys.initialize(to: masterKey)
            policy.pointee.key = nil
            policy.pointee.keys = masterKeys
            policy.pointee.num_master_keys = 1
        } else {
            policy.pointee.key = key.baseAddress
        }
        policy.pointee.window_size = UInt(configuration.replayWindowSize)
        policy.pointee.allow_repeat_tx = configuration.allowsRepeatedTransmission ? 1 : 0
        policy.pointee.next = nil
        return body(policy)
    }
}

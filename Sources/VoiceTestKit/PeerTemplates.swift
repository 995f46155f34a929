import Foundation

/// The configuration templates the real peers start from, shipped with VoiceTestKit:
/// `baresip/config`, `baresip/accounts`, `kamailio/kamailio.cfg` and `kamailio/dispatcher.cfg`.
public enum PeerTemplates {
    /// The directory holding them, or nil when the resource bundle is missing.
    public static var directory: String? {
        Bundle.module.url(forResource: "PeerTemplates", withExtension: nil)?.path
    }

    /// baresip's template directory.
    public static var baresip: String? { directory.map { $0 + "/baresip" } }

    /// Kamailio's template file.
    public static var kamailio: String? { directory.map { $0 + "/kamailio/kamailio.cfg" } }

    /// Kamailio as the proxy of WebSocket clients (RFC 7118: `websocket` + `xhttp`, `nathelper`
    /// aliases) beside UDP and TCP ones; see ``KamailioConfiguration/webSocketPort``.
    public static var kamailioWebSocket: String? { directory.map { $0 + "/kamailio/websocket.cfg" } }

    /// Kamailio as a load balancer (the dispatcher module, OPTIONS health checks) in front of
    /// several SDK processes; see ``KamailioConfiguration/dispatcherDestinations``.
    public static var kamailioDispatcher: String? { directory.map { $0 + "/kamailio/dispatcher.cfg" } }
    /// Kamailio in front of several conference room servers: a room's calls go to the server a
    /// hash of the room id picks, with health checks and failover.
    public static var kamailioConferenceDispatcher: String? { directory.map { $0 + "/kamailio/conference-dispatcher.cfg" } }
}

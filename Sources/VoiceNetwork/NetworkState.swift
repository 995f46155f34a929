import VoiceAddress
/// What the kernel has told the monitor: links, addresses and default routes, kept up to date
/// by applying rtnetlink events in order. A value; the monitor owns one.
package struct NetworkState: Hashable, Sendable {
    package private(set) var links: [Int32: NetworkLink] = [:]
    package private(set) var addresses: [InterfaceAddress.Key: InterfaceAddress] = [:]
    package private(set) var defaultRoutes: Set<NetworkRoute> = []

    package init() {}

    /// Applies one event; returns whether anything the monitor keeps changed.
    @discardableResult
    package mutating func apply(_ event: NetlinkEvent) -> Bool {
        switch event {
        case .link(let link):
            return links.updateValue(link, forKey: link.index) != link
        case .linkRemoved(let index):
            guard links.removeValue(forKey: index) != nil else { return false }
            // The kernel removes the addresses and routes too, but may not say so for each.
            addresses = addresses.filter { $0.key.interfaceIndex != index }
            defaultRoutes = defaultRoutes.filter { $0.outputInterface != index }
            return true
        case .address(let address):
            return addresses.updateValue(address, forKey: address.key) != address
        case .addressRemoved(let address):
            return addresses.removeValue(forKey: address.key) != nil
        case .route(let route):
            guard route.isDefault else { return false }
            return defaultRoutes.insert(route).inserted
        case .routeRemoved(let route):
            guard route.isDefault else { return false }
            return defaultRoutes.remove(route) != nil
        case .done, .error, .overrun:
            return false
        }
    }

    /// The addresses a call could use now, each with its interface's type and best default-route
    /// metric, most preferred first (see ``NetworkCandidate``).
    package func candidates(classifier: NetworkInterfaceClassifier) -> [NetworkCandidate] {
        var result: [NetworkCandidate] = []
        for address in addresses.values where address.isUsable {
            guard let link = links[address.interfaceIndex], link.isUsable else { continue }
            let type = classifier.type(of: link)
            if (type == .loopback) != address.address.isLoopback { continue }
            let metric =
                defaultRoutes
                .filter { $0.outputInterface == link.index && $0.isIPv6 == address.address.isIPv6 }
                .map(\.metric).min()
            result.append(
                NetworkCandidate(
                    address: address.address, prefixLength: address.prefixLength, interfaceName: link.name,
                    interfaceIndex: link.index, type: type, defaultRouteMetric: metric))
        }
        return result.sorted()
    }
}

/// An address a call could use, with what ranks it.
package struct NetworkCandidate: Hashable, Sendable, Comparable, CustomStringConvertible {
    package var address: IPAddress
    /// The length of the subnet prefix assigned with the address.
    package var prefixLength: UInt8
    package var interfaceName: String
    package var interfaceIndex: Int32
    package var type: NetworkInterfaceType
    /// The lowest metric of a default route through the interface (same family), or nil.
    package var defaultRouteMetric: UInt32?

    package init(
        address: IPAddress, prefixLength: UInt8, interfaceName: String, interfaceIndex: Int32, type: NetworkInterfaceType,
        defaultRouteMetric: UInt32?
    ) {
        self.address = address
        self.prefixLength = prefixLength
        self.interfaceName = interfaceName
        self.interfaceIndex = interfaceIndex
        self.type = type
        self.defaultRouteMetric = defaultRouteMetric
    }

    /// Type first (seed 000's order), then an interface with a default route before one without,
    /// then the lower metric, then IPv4 before IPv6, then the address (so the order is total).
    package static func < (a: Self, b: Self) -> Bool {
        if a.type != b.type { return a.type < b.type }
        switch (a.defaultRouteMetric, b.defaultRouteMetric) {
        case (.some(let x), .some(let y)) where x != y: return x < y
        case (.some, .none): return true
        case (.none, .some): return false
        default: break
        }
        if a.address.isIPv6 != b.address.isIPv6 { return !a.address.isIPv6 }
        if a.interfaceIndex != b.interfaceIndex { return a.interfaceIndex < b.interfaceIndex }
        return a.address.bytes.lexicographicallyPrecedes(b.address.bytes)
    }

    /// Whether `destination` is on the subnet assigned with this address (reachable without a router).
    package func isOnLink(_ destination: IPAddress) -> Bool {
        destination.isInSubnet(address, prefixLength: Int(prefixLength))
    }

    package var description: String {
        "\(address) on \(interfaceName) (\(type)\(defaultRouteMetric.map { ", default route metric \($0)" } ?? ""))"
    }
}

extension [NetworkCandidate] {
    /// The address to use for a peer at `destination` (any peer when nil), in the family asked:
    /// - a loopback destination gets a loopback address;
    /// - otherwise the first candidate, in preference order, that reaches it: one on the
    ///   destination's subnet or with a default route (with no destination: one with a default
    ///   route), else the first that is not loopback;
    /// - loopback only when nothing else is up.
    package func preferred(for destination: IPAddress? = nil, ipv6: Bool = false) -> NetworkCandidate? {
        let family = filter { $0.address.isIPv6 == (destination?.isIPv6 ?? ipv6) }
        if let destination, destination.isLoopback { return family.first { $0.type == .loopback } }
        let outward = family.filter { $0.type != .loopback }
        let reaches = outward.first { candidate in
            candidate.defaultRouteMetric != nil || destination.map(candidate.isOnLink) == true
        }
        return reaches ?? outward.first ?? family.first
    }
}

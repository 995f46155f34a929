extension Array {
    /// The elements that satisfy `isFirst` and the others, alternated, one of the first kind
    /// leading; each kind keeps its order, and what is left of the longer kind follows. (RFC
    /// 8421 and RFC 8305 order a host's or a server's IPv6 and IPv4 addresses this way.)
    package func alternating(firstWhere isFirst: (Element) -> Bool) -> [Element] {
        let first = filter(isFirst), second = filter { !isFirst($0) }
        var out: [Element] = []
        out.reserveCapacity(count)
        for i in 0..<Swift.max(first.count, second.count) {
            if i < first.count { out.append(first[i]) }
            if i < second.count { out.append(second[i]) }
        }
        return out
    }
}

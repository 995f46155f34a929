import CALSA
import VoiceSupport

#if canImport(Glibc)
    import Glibc
#endif

/// ALSA's list of PCMs (`snd_device_name_hint`): where no sound server runs (a server, an
/// embedded board), the devices a call can open by name. A hint says which way a PCM goes
/// (`IOID`: Input, Output, or both when absent) and describes it (`DESC`, whose first line is
/// the card's name); it says nothing of formats. ALSA's default is the PCM named `default`,
/// listed whether hinted or not.
enum ALSADeviceHints {
    /// The catalog's listing of every PCM ALSA knows, `default` the default both ways.
    static func listing() -> AudioDeviceCatalog.Event {
        var records = pcms()
        // `default` is always defined (alsa.conf's `pcm.!default`), hinted or not (it is not
        // where no card has a description for it): it is what ``ALSAAudioDevice`` opens unless told.
        if !records.contains(where: { $0.name == "default" }) {
            let index = UInt32.max  // past any hint's position
            records += [AudioDeviceDirection.playback, .capture].map {
                .init(direction: $0, index: index, name: "default", label: "ALSA's default PCM")
            }
        }
        return .listing(records, defaultCapture: "default", defaultPlayback: "default")
    }

    /// One record per PCM and direction, in ALSA's order.
    static func pcms() -> [AudioDeviceCatalog.Record] {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) >= 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var records: [AudioDeviceCatalog.Record] = []
        var index = 0
        while let hint = hints[index] {
            defer { index += 1 }
            guard let name = value(hint, "NAME") else { continue }
            let description = value(hint, "DESC") ?? name
            // "HDA Intel PCH, ALC295 Analog\nFront speakers": the first line names the device.
            let label = description.split(separator: "\n").map(String.init).joined(separator: ": ")
            let direction = value(hint, "IOID")
            if direction != "Input" {
                records.append(.init(direction: .playback, index: UInt32(index), name: name, label: label))
            }
            if direction != "Output" {
                records.append(.init(direction: .capture, index: UInt32(index), name: name, label: label))
            }
        }
        return records
    }

    private static func value(_ hint: UnsafeMutableRawPointer, _ key: String) -> String? {
        guard let raw = snd_device_name_get_hint(hint, key) else { return nil }
        defer { free(raw) }
        return String(cString: raw)
    }
}

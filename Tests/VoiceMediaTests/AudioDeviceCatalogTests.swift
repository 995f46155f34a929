import XCTest

@testable import VoiceMedia

/// The device list as a value: PulseAudio's events (by index) and ALSA's listings in, the
/// changes an app sees out.
final class AudioDeviceCatalogTests: XCTestCase {
    private typealias Record = AudioDeviceCatalog.Record
    private let speaker = Record(direction: .playback, index: 0, name: "speaker", label: "Speakers", formats: [AudioFormat()])
    private let mic = Record(direction: .capture, index: 1, name: "mic", label: "Microphone")
    private let monitor = Record(direction: .capture, index: 0, name: "speaker.monitor", label: "Monitor of Speakers", isMonitor: true)
    private let headset = Record(direction: .playback, index: 7, name: "usb-headset", label: "Headset")

    private func listed() -> AudioDeviceCatalog {
        var catalog = AudioDeviceCatalog(backend: .pulseAudio)
        _ = catalog.apply(.listing([mic, speaker, monitor], defaultCapture: "mic", defaultPlayback: "speaker"))
        return catalog
    }

    func testAListingOrdersPlaybackThenCaptureAndMarksTheDefaults() {
        var catalog = AudioDeviceCatalog(backend: .pulseAudio)
        let changes = catalog.apply(.listing([mic, speaker, monitor], defaultCapture: "mic", defaultPlayback: "speaker"))
        XCTAssertEqual(catalog.devices.map(\.id), ["pulse:playback:speaker", "pulse:capture:speaker.monitor", "pulse:capture:mic"])
        XCTAssertEqual(catalog.defaultDevice(.playback)?.label, "Speakers")
        XCTAssertEqual(catalog.defaultDevice(.capture)?.name, "mic")
        XCTAssertEqual(catalog.devices.first { $0.isMonitor }?.name, "speaker.monitor")
        XCTAssertEqual(changes.count, 5, "three added, two defaults: \(changes)")
        XCTAssertEqual(changes.last, .defaultChanged(.capture, catalog.defaultDevice(.capture)))
    }

    func testAPluggedInHeadsetPickedAsDefaultThenUnplugged() {
        var catalog = listed()
        let plugged = catalog.apply(.present(headset))
        let headsetInfo = AudioDeviceInfo(
            id: "pulse:playback:usb-headset", name: "usb-headset", label: "Headset", direction: .playback, isDefault: false, backend: .pulseAudio)
        XCTAssertEqual(plugged, [.added(headsetInfo)])

        let picked = catalog.apply(.defaults(capture: "mic", playback: "usb-headset"))
        var asDefault = headsetInfo
        asDefault.isDefault = true
        XCTAssertEqual(picked, [.defaultChanged(.playback, asDefault)])
        XCTAssertEqual(catalog.apply(.defaults(capture: "mic", playback: "usb-headset")), [], "a repeat changes nothing")

        // Unplugged: the removal names only the index; the server then names the new default.
        let unplugged = catalog.apply(.absent(.playback, index: 7))
        XCTAssertEqual(unplugged, [.removed(asDefault), .defaultChanged(.playback, nil)])
        let fallback = catalog.apply(.defaults(capture: "mic", playback: "speaker"))
        XCTAssertEqual(fallback, [.defaultChanged(.playback, catalog.defaultDevice(.playback))])
        XCTAssertEqual(catalog.defaultDevice(.playback)?.name, "speaker")

        // Plugged in again: a new index, the same id.
        var again = headset
        again.index = 9
        XCTAssertEqual(catalog.apply(.present(again)), [.added(headsetInfo)])
    }

    func testALabelOrFormatChangeIsReportedAndTheSameRecordIsNot() {
        var catalog = listed()
        XCTAssertEqual(catalog.apply(.present(speaker)), [])
        var renamed = speaker
        renamed.label = "Speakers (HDMI)"
        renamed.formats = [AudioFormat(sampleRate: 44_100, channels: 2, framesPerBuffer: 441)]
        let changes = catalog.apply(.present(renamed))
        XCTAssertEqual(changes.count, 1)
        guard case .changed(let device) = changes.first else { return XCTFail("\(changes)") }
        XCTAssertEqual(device.label, "Speakers (HDMI)")
        XCTAssertTrue(device.isDefault)
    }

    func testALostServerRemovesEverythingAndItsReturnAddsItBack() {
        var catalog = listed()
        let before = catalog.devices
        let lost = catalog.apply(.lost)
        XCTAssertEqual(catalog.devices, [])
        XCTAssertEqual(lost.filter { if case .removed = $0 { true } else { false } }.count, 3)
        XCTAssertEqual(lost.suffix(2), [.defaultChanged(.playback, nil), .defaultChanged(.capture, nil)])
        let back = catalog.apply(.listing([mic, speaker, monitor], defaultCapture: "mic", defaultPlayback: "speaker"))
        XCTAssertEqual(catalog.devices, before)
        XCTAssertEqual(back.filter { if case .added = $0 { true } else { false } }.count, 3)
    }

    func testAnUnknownRemovalAndADefaultThatIsNotListedChangeNothingVisible() {
        var catalog = listed()
        XCTAssertEqual(catalog.apply(.absent(.capture, index: 42)), [])
        let changes = catalog.apply(.defaults(capture: "gone", playback: "speaker"))
        XCTAssertEqual(changes, [.defaultChanged(.capture, nil)], "a default the list does not hold is no device")
        XCTAssertNil(catalog.defaultDevice(.capture))
    }

    func testARemovedDefaultAndTheDefaultAfterItAreOneStep() {
        var catalog = listed()
        _ = catalog.apply([.present(headset), .defaults(capture: "mic", playback: "usb-headset")])
        let headsetInfo = catalog.defaultDevice(.playback)
        XCTAssertEqual(headsetInfo?.name, "usb-headset")
        // What the watch hands over together: the removal and the defaults it asked for after it.
        let changes = catalog.apply([.absent(.playback, index: 7), .defaults(capture: "mic", playback: "speaker")])
        XCTAssertEqual(changes, [.removed(headsetInfo!), .defaultChanged(.playback, catalog.defaultDevice(.playback))], "never \"no default\" between")
        XCTAssertEqual(catalog.defaultDevice(.playback)?.name, "speaker")
    }

    func testTwoIndicesWithOneNameListTheDeviceOnceTheNewerDescribingIt() {
        var catalog = listed()
        var replaced = speaker
        replaced.index = 5
        replaced.label = "Speakers (replaced)"
        let changes = catalog.apply(.present(replaced))
        XCTAssertEqual(catalog.devices.filter { $0.name == "speaker" }.map(\.label), ["Speakers (replaced)"])
        XCTAssertEqual(changes.count, 1, "its description changed: \(changes)")
        XCTAssertEqual(catalog.apply(.absent(.playback, index: 0)), [], "the other index still holds it")
        XCTAssertEqual(catalog.devices.filter { $0.name == "speaker" }.count, 1)
    }

    func testALSAListingsDiffByName() {
        var catalog = AudioDeviceCatalog(backend: .alsa)
        let pcm = { (index: UInt32, name: String, direction: AudioDeviceDirection) in
            Record(direction: direction, index: index, name: name, label: name)
        }
        _ = catalog.apply(.listing([pcm(0, "default", .playback), pcm(0, "default", .capture)], defaultCapture: "default", defaultPlayback: "default"))
        // A USB card appears: it takes an earlier position in ALSA's order than before, which
        // moves no other device.
        let changes = catalog.apply(
            .listing(
                [pcm(0, "hw:CARD=USB,DEV=0", .playback), pcm(1, "default", .playback), pcm(1, "default", .capture)], defaultCapture: "default",
                defaultPlayback: "default"))
        XCTAssertEqual(changes.map { if case .added(let device) = $0 { device.id } else { "other" } }, ["alsa:playback:hw:CARD=USB,DEV=0"])
    }
}

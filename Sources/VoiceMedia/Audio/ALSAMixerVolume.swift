import CALSA

/// The playback volume of an ALSA PCM's card, read through its mixer (the `Master` element,
/// else the first with a playback volume). For the `pulse` and `default` PCMs of a desktop that
/// is the ALSA pulse plugin's mixer, i.e. the PulseAudio default sink's volume.
///
/// Opened lazily and kept; each read first takes the mixer's pending events, so a change made
/// elsewhere (`pactl`, a desktop's volume slider) is seen at the next read.
///
/// Threading: not thread-safe; ``ALSAAudioDevice`` reads it under a lock.
final class ALSAMixerVolume {
    private let control: String
    private var mixer: OpaquePointer?
    private var element: OpaquePointer?
    private var failedOpen = false

    /// For the PCM named `pcm`: `hw:1,0` and `plughw:1,0` read card `hw:1`; other names
    /// (`pulse`, `default`) their control of the same name.
    init(pcm: String) {
        if let colon = pcm.firstIndex(of: ":"), pcm.hasPrefix("hw:") || pcm.hasPrefix("plughw:") {
            let card = pcm[pcm.index(after: colon)...].split(separator: ",").first.map(String.init) ?? "0"
            control = "hw:" + card
        } else {
            control = pcm
        }
    }

    deinit { close() }

    /// The volume, 0…1 (0 when the playback switch is off), or nil when the PCM has no mixer.
    func read() -> Double? {
        guard let mixer = open(), let element else { return nil }
        _ = snd_mixer_handle_events(mixer)
        var minimum = 0, maximum = 0
        guard snd_mixer_selem_get_playback_volume_range(element, &minimum, &maximum) == 0, maximum > minimum else { return nil }
        var value = 0
        guard snd_mixer_selem_get_playback_volume(element, SND_MIXER_SCHN_FRONT_LEFT, &value) == 0 else { return nil }
        if snd_mixer_selem_has_playback_switch(element) != 0 {
            var on: Int32 = 1
            if snd_mixer_selem_get_playback_switch(element, SND_MIXER_SCHN_FRONT_LEFT, &on) == 0, on == 0 { return 0 }
        }
        return min(1, max(0, Double(value - minimum) / Double(maximum - minimum)))
    }

    private func open() -> OpaquePointer? {
        if let mixer { return mixer }
        guard !failedOpen else { return nil }
        var handle: OpaquePointer?
        guard snd_mixer_open(&handle, 0) == 0, let handle else {
            failedOpen = true
            return nil
        }
        guard snd_mixer_attach(handle, control) == 0, snd_mixer_selem_register(handle, nil, nil) == 0, snd_mixer_load(handle) == 0 else {
            snd_mixer_close(handle)
            failedOpen = true
            return nil
        }
        var candidate = snd_mixer_first_elem(handle)
        var chosen: OpaquePointer?
        while let elem = candidate {
            if snd_mixer_selem_has_playback_volume(elem) != 0 {
                let name = snd_mixer_selem_get_name(elem).map { String(cString: $0) } ?? ""
                if name == "Master" {
                    chosen = elem
                    break
                }
                if chosen == nil { chosen = elem }
            }
            candidate = snd_mixer_elem_next(elem)
        }
        guard let chosen else {
            snd_mixer_close(handle)
            failedOpen = true
            return nil
        }
        mixer = handle
        element = chosen
        return handle
    }

    /// Whether the mixer is open.
    var isOpen: Bool { mixer != nil }

    /// Closes the mixer; the next read opens it again (a sound server that came back).
    func close() {
        if let mixer { snd_mixer_close(mixer) }
        mixer = nil
        element = nil
        failedOpen = false
    }
}

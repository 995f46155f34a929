import VoiceSIP
import VoiceMediaTypes
import VoiceSupport

// RFC 4475 torture messages, typed in from the RFC text. Lines are written with LF here and
// sent with CRLF, as in the RFC; `\#u{..}` inserts characters the text shows as <hex> escapes,
// <repeat count=N> blocks are expanded with `r(_:_:)`, and <allOneLine> blocks are joined.

/// The SDP body the RFC's messages carry, with the origin and connection addresses each one uses.
package func rfc4475SDP(_ origin: String, _ connection: String? = nil, time: String = "0 0") -> String {
    "v=0\no=mhandley 29739 7272939 IN IP4 \(origin)\ns=-\nc=IN IP4 \(connection ?? origin)\nt=\(time)\nm=audio 49217 RTP/AVP 0 12\nm=video 3227 RTP/AVP 31\na=rtpmap:31 LPC\n"
}

package let sdp150 = rfc4475SDP("192.0.2.3", "192.0.2.4")

/// Turns RFC text with LF line ends into wire bytes with CRLF.
package func wire(_ text: String) -> [UInt8] {
    var out: [UInt8] = []
    for c in text.utf8 {
        if c == 0x0A { out.append(0x0D) }
        out.append(c)
    }
    return out
}

package enum RFC4475 {
    package struct InvalidVector {
        package let name: String
        package let text: String
        package let kind: SIPParseError.Kind
        package init(_ name: String, _ text: String, _ kind: SIPParseError.Kind) {
            self.name = name
            self.text = text
            self.kind = kind
        }
    }

    /// RFC 4475 §3.1.1.1 wsinv
    package static let wsinv = #"""
        INVITE sip:vivekg@chair-dnrc.example.com;unknownparam SIP/2.0
        TO :
         sip:vivekg@chair-dnrc.example.com ;   tag    = 1918181833n
        from   : "J Rosenberg \\\""       <sip:jdrosen@example.com>
          ;
          tag = 98asjd8
        MaX-fOrWaRdS: 0068
        Call-ID: wsinv.ndaksdj@192.0.2.1
        Content-Length   : 150
        cseq: 0009
          INVITE
        Via  : SIP  /   2.0
         /UDP
            192.0.2.2;branch=390skdjuw
        s :
        NewFangledHeader:   newfangled value
         continued newfangled value
        UnknownHeaderWithUnusualValue: ;;,,;;,;
        Content-Type: application/sdp
        Route:
         <sip:services.example.com;lr;unknownwith=value;unknown-no-value>
        v:  SIP  / 2.0  / TCP     spindle.example.com   ;
          branch  =   z9hG4bK9ikj8  ,
         SIP  /    2.0   / UDP  192.168.255.111   ; branch=
         z9hG4bK30239
        m:"Quoted string \"\"" <sip:jdrosen@example.com> ; newparam =
              newvalue ;
          secondparam ; q = 0.33

        """# + "\n" + sdp150

    /// RFC 4475 §3.1.1.2 intmeth
    package static let intmeth = #"""
        !interesting-Method0123456789_*+`.%indeed'~ sip:1_unusual.URI~(to-be!sure)&isn't+it$/crazy?,/;;*:&it+has=1,weird!*pas$wo~d_too.(doesn't-it)@example.com SIP/2.0
        Via: SIP/2.0/TCP host1.example.com;branch=z9hG4bK-.!%66*_+`'~
        To: "BEL:\\#u{07} NUL:\\#u{00} DEL:\\#u{7F}" <sip:1_unusual.URI~(to-be!sure)&isn't+it$/crazy?,/;;*@example.com>
        From: token1~` token2'+_ token3*%!.- <sip:mundane@example.com>;fromParam''~+*_!.-%="работающий";tag=_token~1'+`*%!-.
        Call-ID: intmeth.word%ZK-!.*_+'@word`~)(><:\/"][?}{
        CSeq: 139122385 !interesting-Method0123456789_*+`.%indeed'~
        Max-Forwards: 255
        extensionHeader-!.%*+_`'~:\#u{FEFF}大停電
        Content-Length: 0


        """#

    /// RFC 4475 §3.1.1.3 esc01
    package static let esc01 = #"""
        INVITE sip:sips%3Auser%40example.com@example.net SIP/2.0
        To: sip:%75se%72@example.com
        From: <sip:I%20have%20spaces@example.net>;tag=938
        Max-Forwards: 87
        i: esc01.239409asdfakjkn23onasd0-3234
        CSeq: 234234 INVITE
        Via: SIP/2.0/UDP host5.example.net;branch=z9hG4bKkdjuw
        C: application/sdp
        Contact:
          <sip:cal%6Cer@host5.example.net;%6C%72;n%61me=v%61lue%25%34%31>
        Content-Length: 150

        """# + "\n" + rfc4475SDP("192.0.2.1")

    /// RFC 4475 §3.1.1.4 escnull
    package static let escnull = #"""
        REGISTER sip:example.com SIP/2.0
        To: sip:null-%00-null@example.com
        From: sip:null-%00-null@example.com;tag=839923423
        Max-Forwards: 70
        Call-ID: escnull.39203ndfvkjdasfkq3w4otrq0adsfdfnavd
        CSeq: 14398234 REGISTER
        Via: SIP/2.0/UDP host5.example.com;branch=z9hG4bKkdjuw
        Contact: <sip:%00@host5.example.com>
        Contact: <sip:%00%00@host5.example.com>
        L:0


        """#

    /// RFC 4475 §3.1.1.5 esc02
    package static let esc02 = #"""
        RE%47IST%45R sip:registrar.example.com SIP/2.0
        To: "%Z%45" <sip:resource@example.com>
        From: "%Z%45" <sip:resource@example.com>;tag=f232jadfj23
        Call-ID: esc02.asdfnqwo34rq23i34jrjasdcnl23nrlknsdf
        Via: SIP/2.0/TCP host.example.com;branch=z9hG4bK209%fzsnel234
        CSeq: 29344 RE%47IST%45R
        Max-Forwards: 70
        Contact: <sip:alias1@host1.example.com>
        C%6Fntact: <sip:alias2@host2.example.com>
        Contact: <sip:alias3@host3.example.com>
        l: 0


        """#

    /// RFC 4475 §3.1.1.6 lwsdisp
    package static let lwsdisp = #"""
        OPTIONS sip:user@example.com SIP/2.0
        To: sip:user@example.com
        From: caller<sip:caller@example.com>;tag=323
        Max-Forwards: 70
        Call-ID: lwsdisp.1234abcd@funky.example.com
        CSeq: 60 OPTIONS
        Via: SIP/2.0/UDP funky.example.com;branch=z9hG4bKkdjuw
        l: 0


        """#

    package static func r(_ s: String, _ n: Int) -> String { String(repeating: s, count: n) }

    /// RFC 4475 §3.1.1.7 longreq
    package static let longreq: String = {
        var s = "INVITE sip:user@example.com SIP/2.0\n"
        s +=
            "To: \"I have a user name of \(r("extreme", 10)) proportion\"<sip:user@example.com:6000;unknownparam1=very\(r("long", 20))value;longparam\(r("name", 25))=shortvalue;very\(r("long", 25))ParameterNameWithNoValue>\n"
        s +=
            "F: sip:\(r("amazinglylongcallername", 5))@example.net;tag=12\(r("982", 50))424;unknownheaderparam\(r("name", 20))=unknowheaderparam\(r("value", 15));unknownValueless\(r("paramname", 10))\n"
        s += "Call-ID: longreq.one\(r("really", 20))longcallid\n"
        s += "CSeq: 3882340 INVITE\n"
        s +=
            "Unknown-\(r("Long", 20))-Name: unknown-\(r("long", 20))-value; unknown-\(r("long", 20))-parameter-name = unknown-\(r("long", 20))-parameter-value\n"
        let viaNames = [
            "Via: ", "v: ", "V: ", "Via: ", "ViA: ", "VIa: ", "VIA: ", "via: ", "viA: ", "vIa: ", "vIA: ",
            "V :  ", "v :  ", "V  : ", "v  : ", "Via : ", "Via  : ",
        ]
        for i in stride(from: 33, through: 1, by: -1) {
            let name = 33 - i < viaNames.count ? viaNames[33 - i] : "Via: "
            s += "\(name)SIP/2.0/TCP sip\(i).example.com\n"
        }
        s += "Via: SIP/2.0/TCP host.example.com;received=192.0.2.5;branch=very\(r("long", 50))branchvalue\n"
        s += "Max-Forwards: 70\n"
        s += "Contact: <sip:\(r("amazinglylongcallername", 5))@host5.example.net>\n"
        s += "Content-Type: application/sdp\nl: 150\n\n" + rfc4475SDP("192.0.2.1")
        return s
    }()

    /// RFC 4475 §3.1.1.8 dblreq: the INVITE after the REGISTER is trailing noise in the datagram.
    package static let dblreq = #"""
        REGISTER sip:example.com SIP/2.0
        To: sip:j.user@example.com
        From: sip:j.user@example.com;tag=43251j3j324
        Max-Forwards: 8
        I: dblreq.0ha0isndaksdj99sdfafnl3lk233412
        Contact: sip:j.user@host.example.com
        CSeq: 8 REGISTER
        Via: SIP/2.0/UDP 192.0.2.125;branch=z9hG4bKkdjuw23492
        Content-Length: 0


        INVITE sip:joe@example.com SIP/2.0
        t: sip:joe@example.com
        From: sip:caller@example.net;tag=141334
        Max-Forwards: 8
        Call-ID: dblreq.0ha0isnda977644900765@192.0.2.15
        CSeq: 8 INVITE
        Via: SIP/2.0/UDP 192.0.2.15;branch=z9hG4bKkdjuw380234
        Content-Type: application/sdp
        Content-Length: 150

        v=0
        o=mhandley 29739 7272939 IN IP4 192.0.2.15
        s=-
        c=IN IP4 192.0.2.15
        t=0 0
        m=audio 49217 RTP/AVP 0 12
        m =video 3227 RTP/AVP 31
        a=rtpmap:31 LPC

        """#

    /// RFC 4475 §3.1.1.9 semiuri
    package static let semiuri = #"""
        OPTIONS sip:user;par=u%40example.net@example.com SIP/2.0
        To: sip:j_user@example.com
        From: sip:caller@example.org;tag=33242
        Max-Forwards: 3
        Call-ID: semiuri.0ha0isndaksdj
        CSeq: 8 OPTIONS
        Accept: application/sdp, application/pkcs7-mime,
                multipart/mixed, multipart/signed,
                message/sip, message/sipfrag
        Via: SIP/2.0/UDP 192.0.2.1;branch=z9hG4bKkdjuw
        l: 0


        """#

    /// RFC 4475 §3.1.1.10 transports
    package static let transports = #"""
        OPTIONS sip:user@example.com SIP/2.0
        To: sip:user@example.com
        From: <sip:caller@example.com>;tag=323
        Max-Forwards: 70
        Call-ID:  transports.kijh4akdnaqjkwendsasfdj
        Accept: application/sdp
        CSeq: 60 OPTIONS
        Via: SIP/2.0/UDP t1.example.com;branch=z9hG4bKkdjuw
        Via: SIP/2.0/SCTP t2.example.com;branch=z9hG4bKklasjdhf
        Via: SIP/2.0/TLS t3.example.com;branch=z9hG4bK2980unddj
        Via: SIP/2.0/UNKNOWN t4.example.com;branch=z9hG4bKasd0f3en
        Via: SIP/2.0/TCP t5.example.com;branch=z9hG4bK0a9idfnee
        l: 0


        """#

    /// RFC 4475 §3.1.1.11 mpart01: headers as text; the body, with its binary part, as raw bytes.
    package static let mpart01Head = """
        MESSAGE sip:kumiko@example.org SIP/2.0
        Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-d87543-4dade06d0bdb11ee-1--d87543-;rport
        Max-Forwards: 70
        Route: <sip:127.0.0.1:5080>
        Identity: r5mwreLuyDRYBi/0TiPwEsY3rEVsk/G2WxhgTV1PF7hHuLIK0YWVKZhKv9Mj8UeXqkMVbnVq37CD+813gvYjcBUaZngQmXc9WNZSDNGCzA+fWl9MEUHWIZo1CeJebdY/XlgKeTa0Olvq0rt70Q5jiSfbqMJmQFteeivUhkMWYUA=
        Contact: <sip:fluffy@127.0.0.1:5070>
        To: <sip:kumiko@example.org>
        From: <sip:fluffy@example.com>;tag=2fb0dcc9
        Call-ID: 3d9485ad0c49859b@Zmx1ZmZ5LW1hYy0xNi5sb2NhbA..
        CSeq: 1 MESSAGE
        Content-Transfer-Encoding: binary
        Content-Type: multipart/mixed;boundary=7a9cbec02ceef655
        Date: Sat, 15 Oct 2005 04:44:56 GMT
        User-Agent: SIPimp.org/0.2.5 (curses)
        Content-Length: 553


        """

    /// The DER-encoded part of mpart01's body, the RFC's <hex> block: it holds NUL and bare LF octets.
    package static let mpart01Binary: [UInt8] = [
        0x30, 0x82, 0x01, 0x52, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02, 0xA0,
        0x82, 0x01, 0x43, 0x30, 0x82, 0x01, 0x3F, 0x02, 0x01, 0x01, 0x31, 0x09, 0x30, 0x07, 0x06, 0x05,
        0x2B, 0x0E, 0x03, 0x02, 0x1A, 0x30, 0x0B, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01,
        0x07, 0x01, 0x31, 0x82, 0x01, 0x20, 0x30, 0x82, 0x01, 0x1C, 0x02, 0x01, 0x01, 0x30, 0x7C, 0x30,
        0x70, 0x31, 0x0B, 0x30, 0x09, 0x06, 0x03, 0x55, 0x04, 0x06, 0x13, 0x02, 0x55, 0x53, 0x31, 0x13,
        0x30, 0x11, 0x06, 0x03, 0x55, 0x04, 0x08, 0x13, 0x0A, 0x43, 0x61, 0x6C, 0x69, 0x66, 0x6F, 0x72,
        0x6E, 0x69, 0x61, 0x31, 0x11, 0x30, 0x0F, 0x06, 0x03, 0x55, 0x04, 0x07, 0x13, 0x08, 0x53, 0x61,
        0x6E, 0x20, 0x4A, 0x6F, 0x73, 0x65, 0x31, 0x0E, 0x30, 0x0C, 0x06, 0x03, 0x55, 0x04, 0x0A, 0x13,
        0x05, 0x73, 0x69, 0x70, 0x69, 0x74, 0x31, 0x29, 0x30, 0x27, 0x06, 0x03, 0x55, 0x04, 0x0B, 0x13,
        0x20, 0x53, 0x69, 0x70, 0x69, 0x74, 0x20, 0x54, 0x65, 0x73, 0x74, 0x20, 0x43, 0x65, 0x72, 0x74,
        0x69, 0x66, 0x69, 0x63, 0x61, 0x74, 0x65, 0x20, 0x41, 0x75, 0x74, 0x68, 0x6F, 0x72, 0x69, 0x74,
        0x79, 0x02, 0x08, 0x01, 0x95, 0x00, 0x71, 0x02, 0x33, 0x01, 0x13, 0x30, 0x07, 0x06, 0x05, 0x2B,
        0x0E, 0x03, 0x02, 0x1A, 0x30, 0x0D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01,
        0x01, 0x05, 0x00, 0x04, 0x81, 0x80, 0x8E, 0xF4, 0x66, 0xF9, 0x48, 0xF0, 0x52, 0x2D, 0xD2, 0xE5,
        0x97, 0x8E, 0x9D, 0x95, 0xAA, 0xE9, 0xF2, 0xFE, 0x15, 0xA0, 0x66, 0x59, 0x71, 0x62, 0x92, 0xE8,
        0xDA, 0x2A, 0xA8, 0xD8, 0x35, 0x0A, 0x68, 0xCE, 0xFF, 0xAE, 0x3C, 0xBD, 0x2B, 0xFF, 0x16, 0x75,
        0xDD, 0xD5, 0x64, 0x8E, 0x59, 0x3D, 0xD6, 0x47, 0x28, 0xF2, 0x62, 0x20, 0xF7, 0xE9, 0x41, 0x74,
        0x9E, 0x33, 0x0D, 0x9A, 0x15, 0xED, 0xAB, 0xDB, 0x93, 0xD1, 0x0C, 0x42, 0x10, 0x2E, 0x7B, 0x72,
        0x89, 0xD2, 0x9C, 0xC0, 0xC9, 0xAE, 0x2E, 0xFB, 0xC7, 0xC0, 0xCF, 0xF9, 0x17, 0x2F, 0x3B, 0x02,
        0x7E, 0x4F, 0xC0, 0x27, 0xE1, 0x54, 0x6D, 0xE4, 0xB6, 0xAA, 0x3A, 0xBB, 0x3E, 0x66, 0xCC, 0xCB,
        0x5D, 0xD6, 0xC6, 0x4B, 0x83, 0x83, 0x14, 0x9C, 0xB8, 0xE6, 0xFF, 0x18, 0x2D, 0x94, 0x4F, 0xE5,
        0x7B, 0x65, 0xBC, 0x99, 0xD0, 0x05,
    ]

    /// The whole mpart01 datagram.
    package static let mpart01: [UInt8] = {
        let partHeaders =
            "--7a9cbec02ceef655\nContent-Type: text/plain\nContent-Transfer-Encoding: binary\n\nHello\n"
            + "--7a9cbec02ceef655\nContent-Type: application/octet-stream\nContent-Transfer-Encoding: binary\n\n"
        return wire(mpart01Head) + wire(partHeaders) + mpart01Binary + wire("\n--7a9cbec02ceef655--\n")
    }()

    /// RFC 4475 §3.1.1.12 unreason
    package static let unreason = #"""
        SIP/2.0 200 = 2**3 * 5**2 но сто девяносто девять - простое
        Via: SIP/2.0/UDP 192.0.2.198;branch=z9hG4bK1324923
        Call-ID: unreason.1234ksdfak3j2erwedfsASdf
        CSeq: 35 INVITE
        From: sip:user@example.com;tag=11141343
        To: sip:user@example.edu;tag=2229
        Content-Length: 154
        Content-Type: application/sdp
        Contact: <sip:user@host198.example.com>

        v=0
        o=mhandley 29739 7272939 IN IP4 192.0.2.198
        s=-
        c=IN IP4 192.0.2.198
        t=0 0
        m=audio 49217 RTP/AVP 0 12
        m=video 3227 RTP/AVP 31
        a=rtpmap:31 LPC

        """#

    /// RFC 4475 §3.1.1.13 noreason
    package static let noreason =
        "SIP/2.0 100 \n" + #"""
            Via: SIP/2.0/UDP 192.0.2.105;branch=z9hG4bK2398ndaoe
            Call-ID: noreason.asndj203insdf99223ndf
            CSeq: 35 INVITE
            From: <sip:user@example.com>;tag=39ansfi3
            To: <sip:user@example.edu>;tag=902jndnke3
            Content-Length: 0
            Contact: <sip:user@host105.example.com>


            """#

    /// RFC 4475 §3.2.1 badbranch
    package static let badbranch = #"""
        OPTIONS sip:user@example.com SIP/2.0
        To: sip:user@example.com
        From: sip:caller@example.org;tag=33242
        Max-Forwards: 3
        Via: SIP/2.0/UDP 192.0.2.1;branch=z9hG4bK
        Accept: application/sdp
        Call-ID: badbranch.sadonfo23i420jv0as0derf3j3n
        CSeq: 8 OPTIONS
        l: 0


        """#

    /// RFC 4475 §3.3.2 unkscm
    package static let unkscm = #"""
        OPTIONS nobodyKnowsThisScheme:totallyopaquecontent SIP/2.0
        To: sip:user@example.com
        From: sip:caller@example.net;tag=384
        Max-Forwards: 3
        Call-ID: unkscm.nasdfasser0q239nwsdfasdkl34
        CSeq: 3923423 OPTIONS
        Via: SIP/2.0/TCP host9.example.com;branch=z9hG4bKkdjuw39234
        Content-Length: 0


        """#

    /// RFC 4475 §3.3.4 unksm2
    package static let unksm2 = #"""
        REGISTER sip:example.com SIP/2.0
        To: isbn:2983792873
        From: <http://www.example.com>;tag=3234233
        Call-ID: unksm2.daksdj@hyphenated-host.example.com
        CSeq: 234902 REGISTER
        Max-Forwards: 70
        Via: SIP/2.0/UDP 192.0.2.21:5060;branch=z9hG4bKkdjuw
        Contact: <name:John_Smith>
        l: 0


        """#

    /// RFC 4475 §3.3.10 bcast
    package static let bcast = #"""
        SIP/2.0 200 OK
        Via: SIP/2.0/UDP 192.0.2.198;branch=z9hG4bK1324923
        Via: SIP/2.0/UDP 255.255.255.255;branch=z9hG4bK1saber23
        Call-ID: bcast.0384840201234ksdfak3j2erwedfsASdf
        CSeq: 35 INVITE
        From: sip:user@example.com;tag=11141343
        To: sip:user@example.edu;tag=2229
        Content-Length: 154
        Content-Type: application/sdp
        Contact: <sip:user@host28.example.com>

        """# + "\n" + rfc4475SDP("192.0.2.198")

    /// The messages of §3.1.1 and §3.2 a parser must accept, as datagrams (the benchmark's corpus).
    package static var validDatagrams: [(name: String, bytes: [UInt8])] {
        [
            ("wsinv", wire(wsinv)), ("intmeth", wire(intmeth)), ("esc01", wire(esc01)), ("escnull", wire(escnull)),
            ("esc02", wire(esc02)), ("lwsdisp", wire(lwsdisp)), ("longreq", wire(longreq)), ("dblreq", wire(dblreq)),
            ("semiuri", wire(semiuri)), ("transports", wire(transports)), ("mpart01", mpart01),
            ("unreason", wire(unreason)), ("noreason", wire(noreason)), ("badbranch", wire(badbranch)),
            ("unkscm", wire(unkscm)), ("unksm2", wire(unksm2)), ("bcast", wire(bcast)),
        ]
    }

    package static let invalid: [InvalidVector] = [
        // RFC 4475 §3.1.2.1 badinv01
        InvalidVector(
            "badinv01",
            #"""
            INVITE sip:user@example.com SIP/2.0
            To: sip:j.user@example.com
            From: sip:caller@example.net;tag=134161461246
            Max-Forwards: 7
            Call-ID: badinv01.0ha0isndaksdjasdf3234nas
            CSeq: 8 INVITE
            Via: SIP/2.0/UDP 192.0.2.15;;,;,,
            Contact: "Joe" <sip:joe@example.org>;;;;
            Content-Length: 152
            Content-Type: application/sdp

            """# + "\n" + rfc4475SDP("192.0.2.15"), .invalidHeaderValue),
        // RFC 4475 §3.1.2.2 clerr
        InvalidVector(
            "clerr",
            #"""
            INVITE sip:user@example.com SIP/2.0
            Max-Forwards: 80
            To: sip:j.user@example.com
            From: sip:caller@example.net;tag=93942939o2
            Contact: <sip:caller@hungry.example.net>
            Call-ID: clerr.0ha0isndaksdjweiafasdk3
            CSeq: 8 INVITE
            Via: SIP/2.0/UDP host5.example.com;branch=z9hG4bK-39234-23523
            Content-Type: application/sdp
            Content-Length: 9999

            """# + "\n" + rfc4475SDP("192.0.2.155"), .invalidContentLength),
        // RFC 4475 §3.1.2.3 ncl
        InvalidVector(
            "ncl",
            #"""
            INVITE sip:user@example.com SIP/2.0
            Max-Forwards: 254
            To: sip:j.user@example.com
            From: sip:caller@example.net;tag=32394234
            Call-ID: ncl.0ha0isndaksdj2193423r542w35
            CSeq: 0 INVITE
            Via: SIP/2.0/UDP 192.0.2.53;branch=z9hG4bKkdjuw
            Contact: <sip:caller@example53.example.net>
            Content-Type: application/sdp
            Content-Length: -999

            """# + "\n" + rfc4475SDP("192.0.2.53"), .invalidContentLength),
        // RFC 4475 §3.1.2.4 scalar02
        InvalidVector(
            "scalar02",
            #"""
            REGISTER sip:example.com SIP/2.0
            Via: SIP/2.0/TCP host129.example.com;branch=z9hG4bK342sdfoi3
            To: <sip:user@example.com>
            From: <sip:user@example.com>;tag=239232jh3
            CSeq: 36893488147419103232 REGISTER
            Call-ID: scalar02.23o0pd9vanlq3wnrlnewofjas9ui32
            Max-Forwards: 300
            Expires: 1\#(r("0", 100))
            Contact: <sip:user@host129.example.com>
              ;expires=280297596632815
            Content-Length: 0


            """#, .invalidHeaderValue),
        // RFC 4475 §3.1.2.5 scalarlg
        InvalidVector(
            "scalarlg",
            #"""
            SIP/2.0 503 Service Unavailable
            Via: SIP/2.0/TCP host129.example.com;branch=z9hG4bKzzxdiwo34sw;received=192.0.2.129
            To: <sip:user@example.com>
            From: <sip:other@example.net>;tag=2easdjfejw
            CSeq: 9292394834772304023312 OPTIONS
            Call-ID: scalarlg.noase0of0234hn2qofoaf0232aewf2394r
            Retry-After: 949302838503028349304023988
            Warning: 1812 overture "In Progress"
            Content-Length: 0


            """#, .invalidHeaderValue),
        // RFC 4475 §3.1.2.6 quotbal
        InvalidVector(
            "quotbal",
            #"""
            INVITE sip:user@example.com SIP/2.0
            To: "Mr. J. User <sip:j.user@example.com>
            From: sip:caller@example.net;tag=93334
            Max-Forwards: 10
            Call-ID: quotbal.aksdj
            Contact: <sip:caller@host59.example.net>
            CSeq: 8 INVITE
            Via: SIP/2.0/UDP 192.0.2.59:5050;branch=z9hG4bKkdjuw39234
            Content-Type: application/sdp
            Content-Length: 152

            """# + "\n" + rfc4475SDP("192.0.2.15"), .invalidHeaderValue),
        // RFC 4475 §3.1.2.7 ltgtruri
        InvalidVector(
            "ltgtruri",
            #"""
            INVITE <sip:user@example.com> SIP/2.0
            To: sip:user@example.com
            From: sip:caller@example.net;tag=39291
            Max-Forwards: 23
            Call-ID: ltgtruri.1@192.0.2.5
            CSeq: 1 INVITE
            Via: SIP/2.0/UDP 192.0.2.5
            Contact: <sip:caller@host5.example.net>
            Content-Type: application/sdp
            Content-Length: 159

            """# + "\n" + rfc4475SDP("192.0.2.5", time: "3149328700 0"), .invalidRequestLine),
        // RFC 4475 §3.1.2.8 lwsruri
        InvalidVector(
            "lwsruri",
            #"""
            INVITE sip:user@example.com; lr SIP/2.0
            To: sip:user@example.com;tag=3xfe-9921883-z9f
            From: sip:caller@example.net;tag=231413434
            Max-Forwards: 5
            Call-ID: lwsruri.asdfasdoeoi2323-asdfwrn23-asd834rk423
            CSeq: 2130706432 INVITE
            Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKkdjuw2395
            Contact: <sip:caller@host1.example.net>
            Content-Type: application/sdp
            Content-Length: 159

            """# + "\n" + rfc4475SDP("192.0.2.1", time: "3149328700 0"), .invalidRequestLine),
        // RFC 4475 §3.1.2.9 lwsstart
        InvalidVector(
            "lwsstart",
            #"""
            INVITE  sip:user@example.com  SIP/2.0
            Max-Forwards: 8
            To: sip:user@example.com
            From: sip:caller@example.net;tag=8814
            Call-ID: lwsstart.dfknq234oi243099adsdfnawe3@example.com
            CSeq: 1893884 INVITE
            Via: SIP/2.0/UDP host1.example.com;branch=z9hG4bKkdjuw3923
            Contact: <sip:caller@host1.example.net>
            Content-Type: application/sdp
            Content-Length: 150

            """# + "\n" + rfc4475SDP("192.0.2.1"), .invalidRequestLine),
        // RFC 4475 §3.1.2.10 trws (the RFC spells the Via host "examle")
        InvalidVector(
            "trws",
            "OPTIONS sip:remote-target@example.com SIP/2.0  \n" + #"""
                Via: SIP/2.0/TCP host1.examle.com;branch=z9hG4bK299342093
                To: <sip:remote-target@example.com>
                From: <sip:local-resource@example.com>;tag=329429089
                Call-ID: trws.oicu34958239neffasdhr2345r
                Accept: application/sdp
                CSeq: 238923 OPTIONS
                Max-Forwards: 70
                Content-Length: 0


                """#, .invalidRequestLine),
        // RFC 4475 §3.1.2.11 escruri
        InvalidVector(
            "escruri",
            #"""
            INVITE sip:user@example.com?Route=%3Csip:example.com%3E SIP/2.0
            To: sip:user@example.com
            From: sip:caller@example.net;tag=341518
            Max-Forwards: 7
            Contact: <sip:caller@host39923.example.net>
            Call-ID: escruri.23940-asdfhj-aje3br-234q098w-fawerh2q-h4n5
            CSeq: 149209342 INVITE
            Via: SIP/2.0/UDP host-of-the-hour.example.com;branch=z9hG4bKkdjuw
            Content-Type: application/sdp
            Content-Length: 150

            """# + "\n" + rfc4475SDP("192.0.2.1"), .invalidRequestLine),
        // RFC 4475 §3.1.2.12 baddate
        InvalidVector(
            "baddate",
            #"""
            INVITE sip:user@example.com SIP/2.0
            To: sip:user@example.com
            From: sip:caller@example.net;tag=2234923
            Max-Forwards: 70
            Call-ID: baddate.239423mnsadf3j23lj42--sedfnm234
            CSeq: 1392934 INVITE
            Via: SIP/2.0/UDP host.example.com;branch=z9hG4bKkdjuw
            Date: Fri, 01 Jan 2010 16:00:00 EST
            Contact: <sip:caller@host5.example.net>
            Content-Type: application/sdp
            Content-Length: 150

            """# + "\n" + rfc4475SDP("192.0.2.5"), .invalidHeaderValue),
        // RFC 4475 §3.1.2.13 regbadct
        InvalidVector(
            "regbadct",
            #"""
            REGISTER sip:example.com SIP/2.0
            To: sip:user@example.com
            From: sip:user@example.com;tag=998332
            Max-Forwards: 70
            Call-ID: regbadct.k345asrl3fdbv@10.0.0.1
            CSeq: 1 REGISTER
            Via: SIP/2.0/UDP 135.180.130.133:5060;branch=z9hG4bKkdjuw
            Contact: sip:user@example.com?Route=%3Csip:sip.example.com%3E
            l: 0


            """#, .invalidHeaderValue),
        // RFC 4475 §3.1.2.14 badaspec
        InvalidVector(
            "badaspec",
            #"""
            OPTIONS sip:user@example.org SIP/2.0
            Via: SIP/2.0/UDP host4.example.com:5060;branch=z9hG4bKkdju43234
            Max-Forwards: 70
            From: "Bell, Alexander" <sip:a.g.bell@example.com>;tag=433423
            To: "Watson, Thomas" < sip:t.watson@example.org >
            Call-ID: badaspec.sdf0234n2nds0a099u23h3hnnw009cdkne3
            Accept: application/sdp
            CSeq: 3923239 OPTIONS
            l: 0


            """#, .invalidURI),
        // RFC 4475 §3.1.2.15 baddn
        InvalidVector(
            "baddn",
            #"""
            OPTIONS sip:t.watson@example.org SIP/2.0
            Via:     SIP/2.0/UDP c.example.com:5060;branch=z9hG4bKkdjuw
            Max-Forwards:      70
            From:    Bell, Alexander <sip:a.g.bell@example.com>;tag=43
            To:      Watson, Thomas <sip:t.watson@example.org>
            Call-ID: baddn.31415@c.example.com
            Accept: application/sdp
            CSeq:    3923239 OPTIONS
            l: 0


            """#, .invalidHeaderValue),
        // RFC 4475 §3.1.2.16 badvers
        InvalidVector(
            "badvers",
            #"""
            OPTIONS sip:t.watson@example.org SIP/7.0
            Via:     SIP/7.0/UDP c.example.com;branch=z9hG4bKkdjuw
            Max-Forwards:     70
            From:    A. Bell <sip:a.g.bell@example.com>;tag=qweoiqpe
            To:      T. Watson <sip:t.watson@example.org>
            Call-ID: badvers.31417@c.example.com
            CSeq:    1 OPTIONS
            l: 0


            """#, .versionNotSupported),
        // RFC 4475 §3.1.2.17 mismatch01
        InvalidVector(
            "mismatch01",
            #"""
            OPTIONS sip:user@example.com SIP/2.0
            To: sip:j.user@example.com
            From: sip:caller@example.net;tag=34525
            Max-Forwards: 6
            Call-ID: mismatch01.dj0234sxdfl3
            CSeq: 8 INVITE
            Via: SIP/2.0/UDP host.example.com;branch=z9hG4bKkdjuw
            l: 0


            """#, .methodMismatch),
        // RFC 4475 §3.1.2.18 mismatch02
        InvalidVector(
            "mismatch02",
            #"""
            NEWMETHOD sip:user@example.com SIP/2.0
            To: sip:j.user@example.com
            From: sip:caller@example.net;tag=34525
            Max-Forwards: 6
            Call-ID: mismatch02.dj0234sxdfl3
            CSeq: 8 INVITE
            Contact: <sip:caller@host.example.net>
            Via: SIP/2.0/UDP host.example.net;branch=z9hG4bKkdjuw
            Content-Type: application/sdp
            l: 138

            v=0
            o=mhandley 29739 7272939 IN IP4 192.0.2.1
            c=IN IP4 192.0.2.1
            m=audio 49217 RTP/AVP 0 12
            m=video 3227 RTP/AVP 31
            a=rtpmap:31 LPC

            """#, .methodMismatch),
        // RFC 4475 §3.1.2.19 bigcode
        InvalidVector(
            "bigcode",
            #"""
            SIP/2.0 4294967301 better not break the receiver
            Via: SIP/2.0/UDP 192.0.2.105;branch=z9hG4bK2398ndaoe
            Call-ID: bigcode.asdof3uj203asdnf3429uasdhfas3ehjasdfas9i
            CSeq: 353494 INVITE
            From: <sip:user@example.com>;tag=39ansfi3
            To: <sip:user@example.edu>;tag=902jndnke3
            Content-Length: 0
            Contact: <sip:user@host105.example.com>


            """#, .invalidStatusLine),
        // RFC 4475 §3.3.1 insuf
        InvalidVector(
            "insuf",
            #"""
            INVITE sip:user@example.com SIP/2.0
            CSeq: 193942 INVITE
            Via: SIP/2.0/UDP 192.0.2.95;branch=z9hG4bKkdj.insuf
            Content-Type: application/sdp
            l: 152

            """# + "\n" + rfc4475SDP("192.0.2.95"), .missingHeader),
        // RFC 4475 §3.3.8 multi01
        InvalidVector(
            "multi01",
            #"""
            INVITE sip:user@company.com SIP/2.0
            Contact: <sip:caller@host25.example.net>
            Via: SIP/2.0/UDP 192.0.2.25;branch=z9hG4bKkdjuw
            Max-Forwards: 70
            CSeq: 5 INVITE
            Call-ID: multi01.98asdh@192.0.2.1
            CSeq: 59 INVITE
            Call-ID: multi01.98asdh@192.0.2.2
            From: sip:caller@example.com;tag=3413415
            To: sip:user@example.com
            To: sip:other@example.net
            From: sip:caller@example.net;tag=2923420123
            Content-Type: application/sdp
            l: 154
            Contact: <sip:caller@host36.example.net>
            Max-Forwards: 5

            """# + "\n" + rfc4475SDP("192.0.2.25") + "\n", .duplicateHeader),
        // RFC 4475 §3.3.9 mcl01
        InvalidVector(
            "mcl01",
            #"""
            OPTIONS sip:user@example.com SIP/2.0
            Via: SIP/2.0/UDP host5.example.net;branch=z9hG4bK293423
            To: sip:user@example.com
            From: sip:other@example.net;tag=3923942
            Call-ID: mcl01.fhn2323orihawfdoa3o4r52o3irsdf
            CSeq: 15932 OPTIONS
            Content-Length: 13
            Max-Forwards: 60
            Content-Length: 5
            Content-Type: text/plain

            There's no way to know how many octets are supposed to be here.

            """#, .duplicateHeader),
    ]
}

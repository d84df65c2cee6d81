/// The RFC 6381 codecs string of an H.264 stream (`avc1.PPCCLL`: profile, constraint flags,
/// level from the SPS), which MSE's `isTypeSupported` and HLS's CODECS attribute ask for.
enum H264CodecString {
    /// From extradata in Annex B (start codes, as libx264 gives it) or avcC form.
    static func from(extradata: [UInt8]) -> String? {
        let sps: ArraySlice<UInt8>
        if extradata.first == 1, extradata.count >= 4 {
            sps = extradata[1...3]
        } else if let start = spsStart(in: extradata), start + 3 <= extradata.count {
            sps = extradata[start..<start + 3]
        } else {
            return nil
        }
        return "avc1." + sps.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    /// Index of the byte after the NAL header of the first SPS (NAL type 7) behind a start code.
    private static func spsStart(in bytes: [UInt8]) -> Int? {
        var index = 0
        while index + 3 < bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                if bytes[index + 3] & 0x1F == 7 { return index + 4 }
                index += 3
            } else {
                index += 1
            }
        }
        return nil
    }
}

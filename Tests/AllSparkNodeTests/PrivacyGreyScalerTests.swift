import COpenCVShim
import Testing

@testable import AllSparkNode

/// The scaler shrinks by exact 2:1 halvings, then one last step: what it gives must still be
/// an average over every source pixel, as the area resize it replaced gave.
@Suite("Privacy: shrinking grey pictures for detection and tracking")
struct PrivacyGreyScalerTests {
    /// A grey picture of one-pixel stripes, black and white: any resize that skips pixels
    /// shows them, one that averages gives mid-grey.
    private func stripes(width: Int, height: Int) -> [UInt8] {
        (0..<height).flatMap { y in (0..<width).map { x in (x + y) % 2 == 0 ? 0 : 255 } }
    }

    private func shrink(_ pixels: [UInt8], width: Int, height: Int, to size: (Int, Int), finish: GreyScaler.Finish) throws -> [UInt8] {
        let scaler = try GreyScaler(finish: finish)
        var out = [UInt8](repeating: 0, count: size.0 * size.1)
        try pixels.withUnsafeBufferPointer { source in
            try out.withUnsafeMutableBufferPointer { target in
                let image = allspark_grey_image(
                    pixels: source.baseAddress, width: Int32(width), height: Int32(height), stride: Int32(width))
                try scaler.resize(image, into: target.baseAddress!, width: size.0, height: size.1)
            }
        }
        return out
    }

    @Test(arguments: [GreyScaler.Finish.area, .bilinear])
    func shrinkingAveragesEverySourcePixel(finish: GreyScaler.Finish) throws {
        // 1280x720 to the tracking thumbnail's 480x270 (2.67:1), and to the net's 640x352.
        for size in [(480, 270), (640, 352), (160, 96)] {
            let out = try shrink(stripes(width: 1280, height: 720), width: 1280, height: 720, to: size, finish: finish)
            let worst = out.map { abs(Int($0) - 128) }.max() ?? 255
            #expect(worst <= 8, "\(finish) to \(size.0)x\(size.1): a pixel \(worst) grey levels from the stripes' mean")
        }
    }

    @Test func anExactHalvingIsTheMeanOfEachTwoByTwo() throws {
        let width = 64, height = 32
        let ramp = (0..<height).flatMap { y in (0..<width).map { x in UInt8((x * 3 + y * 5) % 256) } }
        let out = try shrink(ramp, width: width, height: height, to: (32, 16), finish: .area)
        for y in 0..<16 {
            for x in 0..<32 {
                let sum = [(0, 0), (1, 0), (0, 1), (1, 1)].reduce(0) { $0 + Int(ramp[(2 * y + $1.1) * width + 2 * x + $1.0]) }
                #expect(abs(Int(out[y * 32 + x]) - sum / 4) <= 1, "pixel \(x),\(y)")
            }
        }
    }

    @Test func growingKeepsAPlainPicturePlain() throws {
        // Growing is bilinear: a 2x2 picture of one value stays that value.
        let out = try shrink([90, 90, 90, 90], width: 2, height: 2, to: (6, 4), finish: .area)
        #expect(out.allSatisfy { $0 == 90 })
    }
}

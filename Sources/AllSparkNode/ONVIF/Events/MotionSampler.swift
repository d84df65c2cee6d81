/// Motion for ONVIF's cell motion detector, read from the masked picture the recorder
/// already copies every 500 ms for snapshots (off the per-frame path, and the same with or
/// without the privacy pass): the picture is cut into a grid of cells, and a cell moved
/// when its mean brightness changed by more than `threshold` grey levels since the last
/// copy. Sensor noise moves a cell's mean by a level or two; a person walking, far more.
struct MotionSampler {
    static let columns = 32
    static let rows = 18
    static let threshold = 6.0
    /// Motion ends once no cell has moved for this long.
    static let holdMs: Int64 = 2000

    private var means: [Double] = []
    private var meansWidth = 0
    private var meansHeight = 0
    private var lastSequence = -1
    private var lastMovementMs: Int64?

    /// Reads `frame` when it is a new copy; returns whether there is motion at `nowMs`.
    mutating func update(_ frame: SnapshotFrame?, nowMs: Int64) -> Bool {
        if let frame, frame.sequence != lastSequence, frame.width >= Self.columns, frame.height >= Self.rows,
            frame.planes.count >= frame.width * frame.height
        {
            lastSequence = frame.sequence
            let current = Self.cellMeans(frame)
            if meansWidth == frame.width, meansHeight == frame.height,
                zip(current, means).contains(where: { abs($0 - $1) > Self.threshold })
            {
                lastMovementMs = nowMs
            }
            means = current
            meansWidth = frame.width
            meansHeight = frame.height
        }
        return lastMovementMs.map { nowMs - $0 < Self.holdMs } ?? false
    }

    /// Each cell's mean luma, row by row, over every second pixel of every second row.
    static func cellMeans(_ frame: SnapshotFrame) -> [Double] {
        var sums = [Int](repeating: 0, count: columns * rows)
        var counts = [Int](repeating: 0, count: columns * rows)
        frame.planes.withUnsafeBufferPointer { luma in
            for y in stride(from: 0, to: frame.height, by: 2) {
                let row = y * rows / frame.height * columns
                let line = y * frame.width
                for x in stride(from: 0, to: frame.width, by: 2) {
                    let cell = row + x * columns / frame.width
                    sums[cell] += Int(luma[line + x])
                    counts[cell] += 1
                }
            }
        }
        return zip(sums, counts).map { $1 > 0 ? Double($0) / Double($1) : 0 }
    }
}

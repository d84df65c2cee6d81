import COpenCVShim

/// The points `BoxFlow` has followed between two thumbnails and trusted (they came back to
/// where they started), kept for the last few pairs of pictures: a box moved again over a
/// pair where trusted points already lie inside it takes their motion instead of following
/// points of its own.
///
/// Each face crosses each pair of frames about twice: its track is carried into every new
/// frame, and each search that finds it carries the found box forward to the newest frame
/// and back to the search before. Followed once, the points serve both; following them was
/// a third of the recording thread's CPU time (bench/history 21). A pair is known by the
/// pictures' numbers (`LumaThumbnail.picture`) and serves both directions. Keeps its
/// storage: allocates nothing once its pairs have held their most points.
final class FollowedPoints {
    private struct Pair {
        var first = -1
        var second = -1
        /// Where each point was in the first picture and in the second.
        var starts: [allspark_point] = []
        var ends: [allspark_point] = []
        var lastUsed = 0
    }

    private var pairs: [Pair]
    private var uses = 0

    /// - Parameter pairs: how many pairs of pictures are remembered (the least recently used is forgotten).
    init(pairs: Int = 32) {
        self.pairs = Array(repeating: Pair(), count: max(1, pairs))
        for index in self.pairs.indices {
            self.pairs[index].starts.reserveCapacity(64)
            self.pairs[index].ends.reserveCapacity(64)
        }
    }

    /// Appends to `dx` and `dy` the motion from picture `from` to picture `to` of every
    /// trusted point that lies in `from` inside the rectangle `left...right` x `top...bottom`
    /// (thumbnail pixels).
    func collect(
        from: Int, to: Int, left: Float, top: Float, right: Float, bottom: Float, dx: inout [Float], dy: inout [Float]
    ) {
        guard let index = pairs.firstIndex(where: { ($0.first == from && $0.second == to) || ($0.first == to && $0.second == from) })
        else { return }
        uses += 1
        pairs[index].lastUsed = uses
        let forward = pairs[index].first == from
        pairs[index].starts.withUnsafeBufferPointer { starts in
            pairs[index].ends.withUnsafeBufferPointer { ends in
                for point in 0..<starts.count {
                    let here = forward ? starts[point] : ends[point]
                    let there = forward ? ends[point] : starts[point]
                    guard here.x >= left, here.x <= right, here.y >= top, here.y <= bottom else { continue }
                    dx.append(there.x - here.x)
                    dy.append(there.y - here.y)
                }
            }
        }
    }

    /// Remembers a trusted point followed from `start` in picture `from` to `end` in picture `to`.
    func remember(from: Int, to: Int, start: allspark_point, end: allspark_point) {
        uses += 1
        if let index = pairs.firstIndex(where: { $0.first == from && $0.second == to }) {
            append(start, end, to: index)
        } else if let index = pairs.firstIndex(where: { $0.first == to && $0.second == from }) {
            append(end, start, to: index)
        } else {
            let index = pairs.indices.min { pairs[$0].lastUsed < pairs[$1].lastUsed } ?? 0
            pairs[index].first = from
            pairs[index].second = to
            pairs[index].starts.removeAll(keepingCapacity: true)
            pairs[index].ends.removeAll(keepingCapacity: true)
            append(start, end, to: index)
        }
    }

    private func append(_ first: allspark_point, _ second: allspark_point, to index: Int) {
        pairs[index].starts.append(first)
        pairs[index].ends.append(second)
        pairs[index].lastUsed = uses
    }
}

/// When a block of a tracking thumbnail counts as changed: its mean absolute difference is
/// above `threshold` grey levels over `block` x `block` pixels. Sensor noise moves a block's
/// mean difference by 1 or 2 levels; a face that moves, turns or appears by far more.
enum BlockChange {
    static let block = 16
    static let threshold = 4.0
}

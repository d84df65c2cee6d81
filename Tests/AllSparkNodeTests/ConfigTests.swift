import Testing
@testable import AllSparkNode

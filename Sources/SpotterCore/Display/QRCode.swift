/// A QR code (ISO/IEC 18004) of some text, in byte mode at error-correction level M (15 % of it can
/// be lost), versions 1–20 (up to 666 bytes): enough for an authenticator app's `otpauth://` link,
/// which the portal shows as a picture to scan when two-factor sign-in is set up. The mask is
/// chosen by the standard's penalty rules. After Project Nayuki's reference encoder.
public struct QRCode: Sendable, Equatable {
    /// Modules per side: 21 for version 1, 4 more for each version after it.
    public let size: Int
    public let version: Int
    /// Row-major; `true` is dark.
    private var modules: [Bool]
    private var isFunction: [Bool]

    public enum Failure: Error, Equatable {
        /// The text needs more than version 20 holds at level M (666 bytes).
        case tooLong(bytes: Int)
    }

    public init(_ text: String) throws(Failure) {
        let bytes = Array(text.utf8)
        guard let version = (1...20).first(where: { Self.bitsNeeded(bytes.count, $0) <= Self.dataCodewords($0) * 8 })
        else { throw .tooLong(bytes: bytes.count) }
        self.version = version
        size = version * 4 + 17
        modules = Array(repeating: false, count: size * size)
        isFunction = modules
        drawFunctionPatterns()
        drawCodewords(Self.interleaved(Self.dataCodewords(bytes, version: version), version: version))
        var best = (mask: 0, penalty: Int.max)
        for mask in 0..<8 {
            applyMask(mask)
            drawFormatBits(mask)
            let penalty = penaltyScore()
            if penalty < best.penalty { best = (mask, penalty) }
            applyMask(mask)  // undoes it
        }
        applyMask(best.mask)
        drawFormatBits(best.mask)
        isFunction = []
    }

    /// Whether the module at column `x`, row `y` is dark.
    public func isDark(x: Int, y: Int) -> Bool { modules[y * size + x] }

    /// The code as SVG, one unit per module with the standard's quiet zone of four, scaled to
    /// `pixels` a side; dark modules one path.
    public func svg(pixels: Int, title: String) -> String {
        let side = size + 8
        var path = ""
        for y in 0..<size {
            for x in 0..<size where isDark(x: x, y: y) { path += "M\(x + 4) \(y + 4)h1v1h-1z" }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(pixels)" height="\(pixels)" viewBox="0 0 \(side) \(side)" \
            shape-rendering="crispEdges" role="img" aria-label="\(SVG.escape(title))">\
            <rect width="\(side)" height="\(side)" fill="#fff"/><path fill="#000" d="\(path)"/></svg>
            """
    }

    // MARK: Capacity

    /// Level M's error-correction codewords per block, and blocks, for versions 1–20.
    private static let eccPerBlock = [10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26]
    private static let blocks = [1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16]

    /// Modules left for data and error correction once the function patterns are drawn.
    private static func rawDataModules(_ version: Int) -> Int {
        var result = (16 * version + 128) * version + 64
        if version >= 2 {
            let alignments = version / 7 + 2
            result -= (25 * alignments - 10) * alignments - 55
            if version >= 7 { result -= 36 }
        }
        return result
    }

    private static func dataCodewords(_ version: Int) -> Int {
        rawDataModules(version) / 8 - eccPerBlock[version - 1] * blocks[version - 1]
    }

    private static func countBits(_ version: Int) -> Int { version <= 9 ? 8 : 16 }

    private static func bitsNeeded(_ count: Int, _ version: Int) -> Int {
        count < 1 << countBits(version) ? 4 + countBits(version) + count * 8 : Int.max
    }

    // MARK: Codewords

    /// Mode, length, the bytes, terminator and padding, as the version's data codewords.
    private static func dataCodewords(_ bytes: [UInt8], version: Int) -> [UInt8] {
        var bits: [Bool] = []
        func append(_ value: Int, _ count: Int) {
            for i in stride(from: count - 1, through: 0, by: -1) { bits.append(value >> i & 1 == 1) }
        }
        append(0b0100, 4)
        append(bytes.count, countBits(version))
        for byte in bytes { append(Int(byte), 8) }
        let capacity = dataCodewords(version) * 8
        append(0, min(4, capacity - bits.count))
        append(0, (8 - bits.count % 8) % 8)
        var codewords = stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
        }
        var pad: UInt8 = 0xEC
        while codewords.count < capacity / 8 {
            codewords.append(pad)
            pad ^= 0xEC ^ 0x11
        }
        return codewords
    }

    /// The data split into the version's blocks, each followed by its Reed–Solomon codewords, then
    /// interleaved: the blocks' first codewords, their second, and so on.
    private static func interleaved(_ data: [UInt8], version: Int) -> [UInt8] {
        let blockCount = blocks[version - 1]
        let eccLength = eccPerBlock[version - 1]
        let raw = rawDataModules(version) / 8
        let shortBlocks = blockCount - raw % blockCount
        let shortLength = raw / blockCount
        let divisor = reedSolomonDivisor(eccLength)
        var filled: [[UInt8]] = []
        var start = 0
        for index in 0..<blockCount {
            let length = shortLength - eccLength + (index < shortBlocks ? 0 : 1)
            var block = Array(data[start..<start + length])
            start += length
            let ecc = reedSolomonRemainder(block, divisor)
            if index < shortBlocks { block.append(0) }  // a place keeper, skipped below
            filled.append(block + ecc)
        }
        var result: [UInt8] = []
        for position in 0..<filled[0].count {
            for (index, block) in filled.enumerated()
            where position != shortLength - eccLength || index >= shortBlocks {
                result.append(block[position])
            }
        }
        return result
    }

    private static func reedSolomonDivisor(_ degree: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: degree)
        result[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                result[j] = multiply(result[j], root)
                if j + 1 < degree { result[j] ^= result[j + 1] }
            }
            root = multiply(root, 2)
        }
        return result
    }

    private static func reedSolomonRemainder(_ data: [UInt8], _ divisor: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: divisor.count)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for i in result.indices { result[i] ^= multiply(divisor[i], factor) }
        }
        return result
    }

    /// Multiplication in GF(2⁸) modulo x⁸ + x⁴ + x³ + x² + 1.
    private static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
        var z = 0
        for i in stride(from: 7, through: 0, by: -1) {
            z = (z << 1) ^ ((z >> 7) * 0x11D)
            z ^= Int(y >> UInt8(i) & 1) * Int(x)
        }
        return UInt8(z)
    }

    // MARK: Drawing

    private mutating func set(_ x: Int, _ y: Int, _ dark: Bool, function: Bool = true) {
        modules[y * size + x] = dark
        if function { isFunction[y * size + x] = true }
    }

    private mutating func drawFunctionPatterns() {
        for i in 0..<size {
            set(6, i, i % 2 == 0)
            set(i, 6, i % 2 == 0)
        }
        for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 where (0..<size).contains(x + dx) && (0..<size).contains(y + dy) {
                    let distance = max(abs(dx), abs(dy))
                    set(x + dx, y + dy, distance != 2 && distance != 4)
                }
            }
        }
        let positions = alignmentPositions()
        for (i, x) in positions.enumerated() {
            for (j, y) in positions.enumerated() {
                let last = positions.count - 1
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                for dy in -2...2 {
                    for dx in -2...2 { set(x + dx, y + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        drawFormatBits(0)  // reserves the area; drawn again with the mask chosen
        if version >= 7 {
            var remainder = version
            for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
            let bits = version << 12 | remainder
            for i in 0..<18 {
                let dark = bits >> i & 1 == 1
                let a = size - 11 + i % 3
                let b = i / 3
                set(a, b, dark)
                set(b, a, dark)
            }
        }
    }

    private func alignmentPositions() -> [Int] {
        guard version > 1 else { return [] }
        let count = version / 7 + 2
        let step = (version * 4 + count * 2 + 1) / (count * 2 - 2) * 2
        var result = [6]
        var position = size - 7
        while result.count < count {
            result.insert(position, at: 1)
            position -= step
        }
        return result
    }

    /// Level M (format bits 00) and the mask, with their BCH code, in both copies.
    private mutating func drawFormatBits(_ mask: Int) {
        let data = mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (data << 10 | remainder) ^ 0x5412
        func bit(_ i: Int) -> Bool { bits >> i & 1 == 1 }
        for i in 0...5 { set(8, i, bit(i)) }
        set(8, 7, bit(6))
        set(8, 8, bit(7))
        set(7, 8, bit(8))
        for i in 9..<15 { set(14 - i, 8, bit(i)) }
        for i in 0..<8 { set(size - 1 - i, 8, bit(i)) }
        for i in 8..<15 { set(8, size - 15 + i, bit(i)) }
        set(8, size - 8, true)
    }

    /// The codewords' bits in the standard's zigzag, two columns at a time from the right.
    private mutating func drawCodewords(_ codewords: [UInt8]) {
        var index = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0..<size {
                for j in 0..<2 {
                    let x = right - j
                    let upward = (right + 1) & 2 == 0
                    let y = upward ? size - 1 - vertical : vertical
                    guard !isFunction[y * size + x], index < codewords.count * 8 else { continue }
                    set(x, y, codewords[index >> 3] >> UInt8(7 - index & 7) & 1 == 1, function: false)
                    index += 1
                }
            }
            right -= 2
        }
    }

    /// Flips the data modules the mask selects; applying it twice undoes it.
    private mutating func applyMask(_ mask: Int) {
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] {
                let flip =
                    switch mask {
                    case 0: (x + y) % 2 == 0
                    case 1: y % 2 == 0
                    case 2: x % 3 == 0
                    case 3: (x + y) % 3 == 0
                    case 4: (x / 3 + y / 2) % 2 == 0
                    case 5: x * y % 2 + x * y % 3 == 0
                    case 6: (x * y % 2 + x * y % 3) % 2 == 0
                    default: ((x + y) % 2 + x * y % 3) % 2 == 0
                    }
                if flip { modules[y * size + x].toggle() }
            }
        }
    }

    // MARK: Mask penalty

    /// The standard's four penalty rules: runs of five or more, 2×2 blocks, finder-like patterns,
    /// and the balance of dark and light.
    private func penaltyScore() -> Int {
        var result = 0
        for transposed in [false, true] {
            for line in 0..<size {
                var color = false
                var run = 0
                var history = [Int](repeating: 0, count: 7)
                for position in 0..<size {
                    let dark = transposed ? isDark(x: line, y: position) : isDark(x: position, y: line)
                    if dark == color {
                        run += 1
                        if run == 5 { result += 3 } else if run > 5 { result += 1 }
                    } else {
                        addToHistory(run, &history)
                        if !color { result += finderLikePatterns(history) * 40 }
                        color = dark
                        run = 1
                    }
                }
                if color {
                    addToHistory(run, &history)
                    run = 0
                }
                addToHistory(run + size, &history)
                result += finderLikePatterns(history) * 40
            }
        }
        for y in 0..<size - 1 {
            for x in 0..<size - 1 {
                let dark = isDark(x: x, y: y)
                if dark == isDark(x: x + 1, y: y) && dark == isDark(x: x, y: y + 1)
                    && dark == isDark(x: x + 1, y: y + 1)
                {
                    result += 3
                }
            }
        }
        let dark = modules.count(where: { $0 })
        let total = size * size
        result += ((abs(dark * 20 - total * 10) + total - 1) / total - 1) * 10
        return result
    }

    private func addToHistory(_ run: Int, _ history: inout [Int]) {
        history.removeLast()
        history.insert(history[0] == 0 ? run + size : run, at: 0)
    }

    /// 1:1:3:1:1 runs with four light modules on one side or the other.
    private func finderLikePatterns(_ history: [Int]) -> Int {
        let n = history[1]
        let core = n > 0 && history[2] == n && history[3] == n * 3 && history[4] == n && history[5] == n
        return (core && history[0] >= n * 4 && history[6] >= n ? 1 : 0)
            + (core && history[6] >= n * 4 && history[0] >= n ? 1 : 0)
    }
}

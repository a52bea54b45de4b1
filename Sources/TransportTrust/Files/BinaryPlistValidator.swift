/// Checks a binary property list's structure before Foundation parses it, in time linear in its size.
///
/// Foundation's binary reader recurses once per nesting level, and a file can share one object from many
/// places, so a few kilobytes can describe a cycle, a stack-exhausting depth, or billions of values once
/// expanded. This walks the object table iteratively (format: the `bplist00` trailer and offset table,
/// as written by CoreFoundation's `CFBinaryPList.c`) and refuses those before anything else runs.
///
/// Shared by every reader of property lists: Info.plists (AppTransportSecurity) and pin files.
package struct BinaryPlistValidator {
    /// Why a binary property list was refused.
    package enum Problem: Error, Equatable {
        /// The structure is broken, or holds what Foundation cannot read safely; the reason says which object.
        case corruptBinary(reason: String)
        /// Nested deeper than the limit.
        case tooDeep(limit: Int)
    }

    let bytes: [UInt8]
    let maximumDepth: Int
    let maximumExpandedValues: Int

    package init(bytes: [UInt8], maximumDepth: Int = 64, maximumExpandedValues: Int = 1_000_000) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.maximumExpandedValues = maximumExpandedValues
    }

    /// Refuses the file unless its header, trailer and offset table are sound and its object graph, walked from the
    /// top object, has no set, cycle or non-string key and stays within the depth and expansion limits.
    package func validate() throws(Problem) {
        let layout = try readLayout()
        try walkObjects(layout)
    }

    /// Where the trailer says the objects are, each bound checked against the one before it.
    private struct Layout {
        var refSize: Int
        var objectCount: Int
        var top: Int
        /// The objects lie between the header and the offset table.
        var tableOffset: Int
        var offsets: [Int]
    }

    /// The header, the trailer and the offset table, in file order.
    private func readLayout() throws(Problem) -> Layout {
        let n = bytes.count
        guard n >= 8 + 32, bytes.starts(with: Array("bplist0".utf8)) else {
            throw .corruptBinary(reason: "the file is \(n) bytes, too short for a header and a trailer")
        }
        let t = n - 32
        let offsetSize = Int(bytes[t + 6])
        let refSize = Int(bytes[t + 7])
        let objectCount = readInt(at: t + 8, size: 8)
        let top = readInt(at: t + 16, size: 8)
        let tableOffset = readInt(at: t + 24, size: 8)
        guard (1...8).contains(offsetSize), (1...8).contains(refSize) else {
            throw .corruptBinary(reason: "the trailer gives offset size \(offsetSize) and reference size \(refSize); both must be 1 to 8")
        }
        guard objectCount > 0, objectCount <= n, top < objectCount else {
            throw .corruptBinary(reason: "the trailer gives \(objectCount) objects with the top object at \(top)")
        }
        guard tableOffset >= 8, tableOffset <= t, objectCount <= (t - tableOffset) / offsetSize else {
            throw .corruptBinary(reason: "the offset table at \(tableOffset) does not fit before the trailer")
        }
        var offsets = [Int](repeating: 0, count: objectCount)
        for k in 0..<objectCount {
            let o = readInt(at: tableOffset + k * offsetSize, size: offsetSize)
            guard o >= 8, o < tableOffset else { throw .corruptBinary(reason: "object \(k) starts at \(o), outside the object area") }
            offsets[k] = o
        }
        return Layout(refSize: refSize, objectCount: objectCount, top: top, tableOffset: tableOffset, offsets: offsets)
    }

    /// Iterative post-order walk from the top object: height and expanded size memoised per object, cycles found via
    /// the path.
    private func walkObjects(_ layout: Layout) throws(Problem) {
        var height = [Int](repeating: -1, count: layout.objectCount)
        var expanded = [Int](repeating: 0, count: layout.objectCount)
        var onPath = [Bool](repeating: false, count: layout.objectCount)
        var stack: [(object: Int, children: [Int], next: Int)] = []
        stack.append((layout.top, try children(of: layout.top, in: layout), 0))
        onPath[layout.top] = true
        while let frame = stack.last {
            if frame.next < frame.children.count {
                let child = frame.children[frame.next]
                stack[stack.count - 1].next += 1
                if onPath[child] { throw .corruptBinary(reason: "object \(child) contains itself (a reference cycle)") }
                if height[child] >= 0 { continue }
                guard stack.count < maximumDepth else { throw .tooDeep(limit: maximumDepth) }
                onPath[child] = true
                stack.append((child, try children(of: child, in: layout), 0))
            } else {
                stack.removeLast()
                onPath[frame.object] = false
                var h = 0
                var size = 1
                for c in frame.children {
                    h = max(h, height[c] + 1)
                    size = min(size + expanded[c], maximumExpandedValues + 1)
                }
                guard h <= maximumDepth else { throw .tooDeep(limit: maximumDepth) }
                guard size <= maximumExpandedValues else {
                    throw .corruptBinary(reason: "shared references expand to more than \(maximumExpandedValues) values")
                }
                height[frame.object] = h
                expanded[frame.object] = size
            }
        }
    }

    /// The objects an array or dictionary refers to (a dictionary's keys first); none for any other object.
    private func children(of object: Int, in layout: Layout) throws(Problem) -> [Int] {
        let (tableOffset, refSize) = (layout.tableOffset, layout.refSize)
        let o = layout.offsets[object]
        let marker = bytes[o]
        let kind = marker >> 4
        // The format has a set marker, but property lists hold no sets, and Foundation's reader on Linux
        // crashes (SIGSEGV) on a set with members.
        if kind == 0xC { throw .corruptBinary(reason: "object \(object) at byte \(o) is a set; property lists have no sets") }
        guard kind == 0xA || kind == 0xD else { return [] }
        var count = Int(marker & 0x0F)
        var p = o + 1
        if count == 0x0F {
            guard p < tableOffset, bytes[p] >> 4 == 0x1 else { throw .corruptBinary(reason: "object \(object) has a malformed count") }
            let size = 1 << Int(bytes[p] & 0x0F)
            guard size <= 8, p + 1 + size <= tableOffset else { throw .corruptBinary(reason: "object \(object) has a count past the object area") }
            count = readInt(at: p + 1, size: size)
            p += 1 + size
        }
        let refs = kind == 0xD ? count * 2 : count
        guard count >= 0, refs <= (tableOffset - p) / refSize else {
            throw .corruptBinary(reason: "container object \(object) claims \(count) entries, past the object area")
        }
        var out: [Int] = []
        out.reserveCapacity(refs)
        for k in 0..<refs {
            let r = readInt(at: p + k * refSize, size: refSize)
            guard r < layout.objectCount else { throw .corruptBinary(reason: "object \(object) refers to object \(r), but there are \(layout.objectCount)") }
            // Keys come first in a dictionary. Foundation misreports any other key as an XML syntax error.
            if kind == 0xD, k < count, ![0x5, 0x6].contains(bytes[layout.offsets[r]] >> 4) {
                throw .corruptBinary(reason: "dictionary object \(object) at byte \(o) has a key (object \(r)) that is not a string")
            }
            out.append(r)
        }
        return out
    }

    private func readInt(at offset: Int, size: Int) -> Int {
        guard offset >= 0, offset + size <= bytes.count else { return Int.max }
        var v: UInt64 = 0
        for k in 0..<size { v = (v << 8) | UInt64(bytes[offset + k]) }
        return v > UInt64(Int.max / 2) ? Int.max / 2 : Int(v)
    }
}

import SwiftASN1

/// RFC 5280's valid_policy_tree, kept as a graph as RFC 9618 describes: one node per policy OID per depth, each
/// with the policies of its parents one depth up and its expected_policy_set. The tree can grow exponentially with
/// depth when certificates map policies to each other (CVE-2023-0464); the graph grows with the size of the
/// certificates, and ``size`` counts its nodes and edges so that the caller can refuse a hostile path early.
struct PolicyGraph {
    typealias OID = ASN1ObjectIdentifier
    static let anyPolicy = PolicyExtensions.anyPolicy

    struct Node {
        /// The valid policies of its parents, one depth up.
        var parents: [OID]
        /// expected_policy_set; nil for the node's own policy alone (not mapped).
        var expected: [OID]?
    }

    typealias Level = [OID: Node]

    /// Depth 0 holds anyPolicy alone. Nodes are never removed above the deepest depth: pruning is replaced by
    /// following parents up from the deepest depth (``isNull``, ``isValid(for:)``).
    private(set) var levels: [Level] = [[anyPolicy: Node(parents: [], expected: nil)]]
    /// True once the tree is NULL (RFC 5280 §6.1.3 (e)): no node at the deepest depth.
    private(set) var isNull = false
    /// Nodes and edges created so far, the measure of the work done.
    private(set) var size = 1

    var deepest: Level { isNull ? [:] : levels[levels.count - 1] }

    /// Every policy the deepest depth's nodes expect to see in the next certificate.
    var expectedPolicies: [OID] {
        var out: [OID] = []
        var seen = Set<OID>()
        for (key, node) in deepest { for e in node.expected ?? [key] where seen.insert(e).inserted { out.append(e) } }
        return out.sorted { $0.description < $1.description }
    }

    mutating func makeNull() { isNull = true }

    /// §6.1.3 (d) (1) and (2): the next depth from a certificate's policies. `anyPolicyCounts` says whether an
    /// anyPolicy it asserts stands for every expected policy (inhibit_anyPolicy, or a self-issued intermediate).
    mutating func addDepth(policies: [OID], anyPolicyCounts: Bool) {
        guard !isNull else { return }
        let above = levels[levels.count - 1]
        // Which parents expect each policy: at most one entry per (node, expected policy) of the depth above.
        var expecting: [OID: [OID]] = [:]
        for (key, node) in above { for e in node.expected ?? [key] { expecting[e, default: []].append(key) } }
        size += expecting.count
        var next: Level = [:]
        for p in policies where p != Self.anyPolicy {
            if let parents = expecting[p] {
                next[p] = Node(parents: parents, expected: nil)
                size += 1 + parents.count
            } else if above[Self.anyPolicy] != nil {
                next[p] = Node(parents: [Self.anyPolicy], expected: nil)
                size += 2
            }
        }
        if anyPolicyCounts && policies.contains(Self.anyPolicy) {
            for (e, parents) in expecting where next[e] == nil {
                next[e] = Node(parents: parents, expected: nil)
                size += 1 + parents.count
            }
        }
        levels.append(next)
        if next.isEmpty { isNull = true }
    }

    /// §6.1.4 (b): a certificate's mappings, grouped by issuerDomainPolicy. When mapping is allowed each mapped node
    /// expects the subject policies instead of its own (a node is made under anyPolicy when none has the issuer
    /// policy); when it is inhibited the issuer policies' nodes are deleted.
    mutating func apply(mappings: [(issuer: OID, subjects: [OID])], allowed: Bool) {
        guard !isNull else { return }
        var level = levels[levels.count - 1]
        for (issuer, subjects) in mappings {
            if allowed {
                if level[issuer] != nil {
                    level[issuer]?.expected = subjects
                } else if level[Self.anyPolicy] != nil {
                    level[issuer] = Node(parents: [Self.anyPolicy], expected: subjects)
                    size += 2
                }
                size += subjects.count
            } else {
                level[issuer] = nil
            }
        }
        levels[levels.count - 1] = level
        if level.isEmpty { isNull = true }
    }

    /// The policies the path's authorities stand behind: valid_policy_node_set of §6.1.5 (g) (iii), the nodes
    /// whose parent is anyPolicy, counting only those with a descendant at the deepest depth.
    func authorityPolicies() -> Set<OID> {
        guard !isNull else { return [] }
        var live = Set(levels[levels.count - 1].keys)
        var found = Set<OID>()
        for depth in stride(from: levels.count - 1, to: 0, by: -1) {
            var above = Set<OID>()
            for key in live {
                guard let node = levels[depth][key] else { continue }
                if key != Self.anyPolicy && node.parents == [Self.anyPolicy] { found.insert(key) }
                above.formUnion(node.parents)
            }
            live = above
        }
        return found
    }

    /// §6.1.5 (g): whether the tree, intersected with the user's acceptable policies, is not NULL.
    func isValid(for acceptable: Set<OID>) -> Bool {
        guard !isNull else { return false }
        if acceptable.contains(Self.anyPolicy) { return true }
        // Per depth, the non-any nodes whose path up meets an acceptable policy where it leaves anyPolicy.
        var accepted = Set<OID>()
        for depth in 1..<levels.count {
            var here = Set<OID>()
            for (key, node) in levels[depth] where key != Self.anyPolicy {
                let ok = node.parents.contains { $0 == Self.anyPolicy ? acceptable.contains(key) : accepted.contains($0) }
                if ok { here.insert(key) }
            }
            accepted = here
        }
        if !accepted.isEmpty { return true }
        // anyPolicy at the deepest depth stands for the acceptable policies no authority asserted by name (an
        // acceptable one an authority did assert would have been accepted above).
        return levels[levels.count - 1][Self.anyPolicy] != nil && !acceptable.isEmpty
    }
}

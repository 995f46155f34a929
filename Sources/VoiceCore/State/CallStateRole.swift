/// Which side of the call a ``CallStateMachine`` represents.
package enum CallStateRole: Sendable, Hashable {
    /// The call was placed with `connect`; it rings before it connects.
    case caller
    /// The call was created by accepting an invite; it never rings.
    case callee
}

// The library's product is its layers: a client's `import TouchGate` sees `AuthError`, the
// policies, the prompt sources and the store as before the split, as swift-nio's `NIO` re-exports
// `NIOCore` and `NIOPosix`.
@_exported import TouchGateCore
@_exported import TouchGatePAM
@_exported import TouchGateStore
@_exported import TouchGateSystem
@_exported import TouchGateTerminal

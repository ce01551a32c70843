/// A prompt source that can be read while a biometric stack only waits for the sensor (`-S`).
package protocol WaitingInput: AnyObject {
    /// The descriptor to poll for input during the wait.
    var waitingDescriptor: Int32 { get }
    /// What has arrived on it, without blocking; with `keepText` false a non-empty line is discarded.
    func peekLine(keepText: Bool) -> WaitingLine
    /// The stack began to wait for the sensor: show what it said now, and what can be typed.
    func waitingStarted(typedLineIsPasscode: Bool)
}

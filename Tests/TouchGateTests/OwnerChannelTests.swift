import Glibc
import Testing
import TouchGate

/// How the watcher finds the running owners without the store: by their channels' names in the
/// kernel's list of Unix sockets.
@Suite struct OwnerChannelTests {
    @Test func aListeningChannelIsFoundByItsUidAndIsGoneOnceClosed() throws {
        let me = try #require(ProcessIdentity.current)
        let channel = OwnerChannel.listen(owner: me)
        try #require(channel >= 0)
        #expect(OwnerChannel.running(uid: getuid()).contains(me))
        #expect(!OwnerChannel.running(uid: getuid() &+ 1).contains(me))
        close(channel)
        // A process another test starts meanwhile holds the descriptor until its exec (close-on-exec):
        // the socket goes with the last descriptor.
        var gone = false
        for _ in 0..<500 where !gone {
            gone = !OwnerChannel.running(uid: getuid()).contains(me)
            if !gone { usleep(10_000) }
        }
        #expect(gone)
    }

    @Test func onlyListeningSocketsOfTheUidWithAWellFormedNameCount() {
        let listing = """
            Num       RefCount Protocol Flags    Type St Inode Path
            0000000000000000: 00000002 00000000 00010000 0001 01 100 @touchgate-shell/1000/42-777
            0000000000000000: 00000002 00000000 00010000 0001 01 101 @touchgate-shell/1000/42-777
            0000000000000000: 00000003 00000000 00000000 0001 03 102 @touchgate-shell/1000/43-1
            0000000000000000: 00000002 00000000 00010000 0001 01 103 @touchgate-shell/1001/44-1
            0000000000000000: 00000002 00000000 00010000 0001 01 104 @touchgate-shell/1000/45
            0000000000000000: 00000002 00000000 00010000 0001 01 105 @touchgate-shell/1000/x-1
            0000000000000000: 00000002 00000000 00010000 0001 01 106 /run/touchgate-shell/1000/46-1
            0000000000000000: 00000002 00000000 00010000 0001 01 107
            0000000000000000: 00000002 00000000 00010000 0001 01 108 @touchgate-shell/1000/47-9

            """
        #expect(OwnerChannel.owners(inList: listing, uid: 1000)
                == [ProcessIdentity(pid: 42, startTime: 777), ProcessIdentity(pid: 47, startTime: 9)])
    }
}

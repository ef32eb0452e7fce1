import SystemdSupport
import Testing

extension ProcessWideTests {
    @Suite("journal: fixed MESSAGE_IDs for life-cycle events")
    struct MessageIDTests {
        @Test("journal: every MESSAGE_ID is 32 lowercase hex digits and none is used twice")
        func format() {
            let ids = MessageID.allCases.map(\.rawValue)
            #expect(ids.count == 10)
            #expect(Set(ids).count == ids.count)
            for id in ids {
                #expect(id.count == 32 && id.allSatisfy { $0.isHexDigit && !$0.isUppercase }, "\(id)")
            }
        }

        @Test("journal: a MESSAGE_ID travels as the message-id metadata key")
        func metadata() {
            #expect(MessageID.daemonReady.metadata == ["message-id": "675d29ac72d64ddea67f1cf7b475e1e8"])
        }
    }
}

import LocationNetwork
import Testing

/// The schedule of asking on its own, in virtual time: SEMANTICS U9 and U11.
@Suite struct AskingPolicyTests {
    let two = ["00:11:22:33:44:01", "00:11:22:33:44:02"]

    @Test("U9: the first decision asks at once")
    func firstAsk() {
        let policy = AskingPolicy(interval: 300, minimumInterval: 10)
        #expect(policy.decide(now: 1000, sending: two, considerIp: false) == .ask)
    }

    @Test("U9: unchanged access points are asked again after interval, not before")
    func interval() {
        var policy = AskingPolicy(interval: 300, minimumInterval: 10)
        policy.asked(at: 1000, sending: two)
        policy.answered(success: true)
        #expect(policy.decide(now: 1200, sending: two, considerIp: false) == .wait(until: 1300))
        #expect(policy.decide(now: 1300, sending: two, considerIp: false) == .ask)
        // The same access points in another order (signals changed) are no change.
        #expect(policy.decide(now: 1200, sending: two.reversed(), considerIp: false) == .wait(until: 1300))
    }

    @Test("U9: a material change asks again, but never sooner than minimumInterval")
    func changeWaitsForMinimumInterval() {
        var policy = AskingPolicy(interval: 300, minimumInterval: 10)
        policy.asked(at: 1000, sending: two)
        policy.answered(success: true)
        let three = two + ["00:11:22:33:44:04"]
        #expect(policy.decide(now: 1005, sending: three, considerIp: false) == .wait(until: 1010))
        #expect(policy.decide(now: 1010, sending: three, considerIp: false) == .ask)
    }

    @Test("U9: what counts as a material change")
    func materialChange() {
        let strong = (1...5).map { "s\($0)" }
        let weak = (1...20).map { "w\($0)" }
        // A new access point among the strongest five.
        #expect(AskingPolicy.materiallyChanged(from: strong + weak, to: ["new"] + strong.dropLast() + weak))
        // One of the strongest five gone.
        #expect(AskingPolicy.materiallyChanged(from: strong + weak, to: Array(strong.dropFirst()) + weak))
        // A weak one replaced: not material.
        #expect(!AskingPolicy.materiallyChanged(from: strong + weak, to: strong + weak.dropLast() + ["w99"]))
        // A third of the weak ones replaced: material.
        let replaced = strong + weak.prefix(12) + (1...8).map { "x\($0)" }
        #expect(AskingPolicy.materiallyChanged(from: strong + weak, to: replaced))
        // From none to some, and back.
        #expect(AskingPolicy.materiallyChanged(from: [], to: ["a"]))
        #expect(AskingPolicy.materiallyChanged(from: ["a"], to: []))
        #expect(!AskingPolicy.materiallyChanged(from: [], to: []))
        #expect(!AskingPolicy.materiallyChanged(from: ["a", "b"], to: ["b", "a"]))
    }

    @Test("U11: failures back off, doubling from minimumInterval up to interval, and a success resets it")
    func backoff() {
        var policy = AskingPolicy(interval: 60, minimumInterval: 5)
        var now = 0.0
        var waits: [Double] = []
        for _ in 1...6 {
            policy.asked(at: now, sending: two)
            policy.answered(success: false)
            guard case .wait(let until) = policy.decide(now: now, sending: two, considerIp: false) else {
                Issue.record("a failure must be followed by a wait")
                return
            }
            waits.append(until - now)
            now = until
            #expect(policy.decide(now: now, sending: two, considerIp: false) == .ask)
        }
        #expect(waits == [5, 10, 20, 40, 60, 60])
        policy.asked(at: now, sending: two)
        policy.answered(success: true)
        #expect(policy.pause == 5)
        #expect(policy.decide(now: now + 59, sending: two, considerIp: false) == .wait(until: now + 60))
    }

    @Test("U11: with nothing to send and considerIp false nothing is asked; with considerIp the IP is asked")
    func nothingToSend() {
        var policy = AskingPolicy(interval: 300, minimumInterval: 10)
        #expect(policy.decide(now: 0, sending: [], considerIp: false) == .nothingToSend)
        #expect(policy.decide(now: 0, sending: [], considerIp: true) == .ask)
        policy.asked(at: 0, sending: two)
        policy.answered(success: true)
        // The access points vanish: nothing to send at once, however recent the last request.
        #expect(policy.decide(now: 1, sending: [], considerIp: false) == .nothingToSend)
        policy.noneInView()
        // They come back, the same ones: a change, asked once minimumInterval has passed.
        #expect(policy.decide(now: 20, sending: two, considerIp: false) == .ask)
    }
}

// Package deposit holds the rules of date-holding deposits, free of AWS,
// HTTP and Stripe's SDK: the status machine, what each change owes the lead
// and the partner's webhooks, the amount, currency and checkout-expiry
// rules, and when a read reconciles against Stripe. shared/adapter/stripepay
// turns Stripe's events and Checkout Sessions into this package's [Event]
// values; nothing here knows Stripe's wire format.
//
// [Apply] moves a deposit to an event's target status only when the target
// ranks higher (checkout_open < pending < failed < paid < refunded <
// disputed), so a repeated or out-of-order event changes nothing and any
// order of the same events ends in the same status. The [Transition] it
// returns says what the caller writes in the same transaction as the
// status: [Transition.Books] (the lead is booked, [Deposit.PaidAt] set) and
// [Transition.Webhooks], the partner webhook events owed, in order.
// [Status.PublicStatus] is what getDeposit reports; the checkout URL is
// shown only while [Deposit.Payable].
//
// [Amount], [NormalizeCurrency] and [CheckoutExpiresAt] check a request's
// amount, currency and checkout lifetime. A read of an unsettled deposit
// asks Stripe for its session when [NeedsReconcile] says so, at most once
// per [ReconcileInterval], and applies the outcome through the same [Apply].
//
// Design (statuses, the event table, every out-of-order case and why):
// docs/DEPOSITS.md.
package deposit

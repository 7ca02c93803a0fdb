// Package deposit holds the rules of date-holding deposits (createDeposit,
// getDeposit and Stripe's webhooks; issue 12), free of AWS, HTTP and Stripe's
// SDK: the status machine, what each change owes the lead and the partner's
// webhooks, the amount, currency and checkout-expiry rules, and when a read
// reconciles against Stripe. shared/adapter/stripepay turns Stripe's events and
// Checkout Sessions into this package's [Event] values; nothing here knows
// Stripe's wire format.
//
// # Statuses
//
// A deposit is one Stripe Checkout Session on the partner's connected
// account. Its internal [Status] and what getDeposit reports
// ([Status.PublicStatus], the spec's PublicDepositStatus):
//
//	status         meaning                                             public
//	checkout_open  created; the checkout URL is payable until expiry   pending
//	pending        checkout completed, payment not settled (async)     pending
//	failed         async payment failed, or the checkout expired       failed
//	paid           the money arrived; the lead is booked               paid
//	refunded       the charge was refunded (fully or partly)           refunded
//	disputed       the customer disputed the charge                    disputed
//
// A lead without a deposit reports [PublicNone]; a status this package
// does not know reports [PublicUnknown]. The checkout URL is shown only
// while [Deposit.Payable]: checkout_open and before its expiry.
//
// # Events
//
// Each Stripe webhook event the receiver acts on maps to one [Event]
// (shared/adapter/stripepay does the mapping); reconciliation on read maps a
// Checkout Session's state to the same events:
//
//	Stripe event                                      Event         target
//	checkout.session.completed, payment_status paid   paid          paid
//	checkout.session.completed, otherwise             unpaid        pending
//	checkout.session.async_payment_succeeded          async_paid    paid
//	checkout.session.async_payment_failed             async_failed  failed
//	checkout.session.expired                          expired       failed
//	charge.refunded                                   refunded      refunded
//	charge.dispute.created                            disputed      disputed
//
// # Never backwards
//
// [Apply] moves a deposit to an event's target only when the target ranks
// above the current status, in this order:
//
//	checkout_open < pending < failed < paid < refunded < disputed
//
// Otherwise nothing changes. So applying an event twice changes nothing,
// and any order of the same events ends in the same status (the highest
// target), which is what at-least-once, out-of-order webhook delivery
// needs. What that decides, case by case:
//
//	case                               result     why
//	expired or async_failed after paid unchanged  the rule: never back from paid
//	unpaid after paid                  unchanged  completed-unpaid arrives after async_payment_succeeded
//	paid after failed                  paid       Stripe never pays an expired session nor succeeds a
//	                                              failed async payment, so this cannot come from one
//	                                              session; were it ever to, evidence that money moved
//	                                              wins over evidence that it did not (a paying
//	                                              customer shown "failed" is worse than a booking to undo)
//	refunded or disputed before paid   refunded/  the paid event was lost or is late: Stripe refunds and
//	(checkout_open, pending, failed)   disputed   disputes only succeeded charges, so the charge proves
//	                                              the payment; the skipped step books the lead too
//	disputed after refunded            disputed   Stripe lets a cardholder dispute a refunded charge
//	refunded after disputed            unchanged  a disputed charge cannot be refunded, so the refund
//	                                              happened first and arrived late
//	completed-unpaid after failed      unchanged  failed ranks above pending
//
// A partial refund counts as refunded: PublicDepositStatus has no partial
// state (shared/adapter/stripepay carries the refunded amount for the record).
//
// # What a change owes
//
// A [Transition] says what the caller must do, in the same write as the
// status change: [Transition.Books] when the deposit reaches paid (or
// skips past it), which moves the lead to booked and sets [Deposit.PaidAt];
// [Transition.Webhooks] lists the partner webhook events it emits, in order:
//
//	change reaches   webhooks
//	paid             deposit.paid, lead.booked
//	refunded         deposit.refunded (after deposit.paid, lead.booked when it skipped paid)
//	disputed         deposit.disputed (likewise)
//	failed           deposit.failed
//	pending          none
//
// The webhooks follow the deposit's own changes, not Stripe's events: a
// refund delivered after the dispute changes nothing, so it emits nothing.
//
// # Amounts, currency and expiry
//
// amount_cents is an integer from 100 to 500000 ([Amount]); when the
// request has none, the partner's configured deposit applies. The currency
// is the partner's, a lowercase ISO 4217 code with two decimal places
// ([NormalizeCurrency]): amount_cents means hundredths. The checkout's
// lifetime is configurable between 30 minutes and 24 hours, Stripe's own
// bounds for a Checkout Session's expires_at, and defaults to 24 hours, as
// Stripe's does ([CheckoutExpiresAt] keeps a minute inside each bound).
//
// # Reconciliation on read
//
// getDeposit reflects Stripe's truth even when a webhook was lost: a read
// of a checkout_open or pending deposit asks Stripe for its Checkout
// Session when [NeedsReconcile] says so, that is at most once a minute per
// deposit ([ReconcileInterval]), and applies the event the session's state
// maps to through the same [Apply]. Reads in between answer the stored
// status. There is no scheduled sweep.
package deposit

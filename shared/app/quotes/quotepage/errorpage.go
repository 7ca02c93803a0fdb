package quotepage

// ErrorPage returns a short, friendly HTML page with the given status for
// a quote link that cannot be used: 404 (the link is not known: check that
// the whole link was opened, or ask company to send it again), 410 (it
// expired: ask company for a new one) or 409 (the quote was replaced by a
// newer one or can no longer be accepted: look for the newer link, or
// contact company). Any other status gets a "something went wrong, try
// again in a few minutes" page. It carries the headers of Headers. An empty
// company reads "the moving company".
func ErrorPage(status int, company string) Document {
	name := companyText(company)
	var title, message string
	switch status {
	case 404:
		title = "We can’t find this quote"
		message = "Check that you opened the whole link from your message or email. If it still doesn’t work, ask " + name + " to send it again."
	case 410:
		title = "This quote link has expired"
		message = "Quote links only work for a limited time. To go ahead with your move, please ask " + name + " for a new quote."
	case 409:
		title = "This quote has been replaced or closed"
		message = "It can no longer be accepted. " + upperFirst(name) + " may have sent you a newer quote: look for the newer link in your messages, or contact " + name + "."
	default:
		title = "Sorry, something went wrong"
		message = "Please try the link again in a few minutes. If it still doesn’t work, contact " + name + "."
	}
	return messagePage(status, company, title, message)
}

// BookedLinkExpiredPage is the 410 page of an expired link whose quote
// booked the move (its deposit was paid): unlike ErrorPage's 410, it does
// not send a booked customer for a new quote.
func BookedLinkExpiredPage(company string) Document {
	name := companyText(company)
	return messagePage(410, company, "Your move is booked",
		"This link has expired, but your deposit was received and your move with "+name+" is booked. "+
			upperFirst(name)+" has your booking details: contact them with any questions.")
}

// OnlineOff words what a customer reads when company no longer takes
// acceptances or deposits online (the operator turned the partner's
// deposits beta off): the page's title, and the message both the page and
// its accept and deposit calls give.
func OnlineOff(company string) (title, message string) {
	name := companyText(company)
	return "Online acceptance is unavailable",
		"You can’t accept this quote or pay a deposit online at the moment. To go ahead with your move, please contact " + name + " directly."
}

// OnlineOffPage is the 403 page of a quote the customer could act on
// (accept, sign or pay) when company no longer takes that online: it
// offers no button, only whom to contact.
func OnlineOffPage(company string) Document {
	title, message := OnlineOff(company)
	return messagePage(403, company, title, message)
}

// messagePage is the short page of the error and notice pages.
func messagePage(status int, company, title, message string) Document {
	body, err := renderHTML(messagePageHTML(messageView{
		CSS: loadAssets().CSS, Brand: brand(company), Title: title, Message: message,
	}))
	if err != nil {
		body = []byte(title)
	}
	return Document{Status: status, Header: Headers(), Body: body}
}

// messageView is what messagePageHTML shows; CSS is the embedded
// stylesheet, inlined verbatim.
type messageView struct {
	CSS, Brand, Title, Message string
}

package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Roles as Chromium computes them, for Find and the helpers that use it.
const (
	RoleButton     = "button"     // <button>, and <input type=file>
	RoleTextbox    = "textbox"    // <input type=text>, <textarea>
	RoleSpinbutton = "spinbutton" // <input type=number>
	RoleCombobox   = "combobox"   // <select>
	RoleCheckbox   = "checkbox"
	RoleLink       = "link"
	RoleHeading    = "heading"
	RoleProgress   = "progressbar" // <progress>
)

// ErrNotFound is wrapped by Find when no element, or more than one, has the
// role and name.
var ErrNotFound = errors.New("browser: no single element with that role and name")

// pollEvery is how often WaitFor and WaitText look again.
const pollEvery = 100 * time.Millisecond

// Find returns the DOM node of the one element whose accessible role and
// name are exactly role and name, as a screen reader would announce them.
// Elements hidden from everyone (display:none, the hidden attribute) do not
// count. It fails, wrapping ErrNotFound, when there is none or more than
// one.
func Find(ctx context.Context, role, name string) (cdp.BackendNodeID, error) {
	doc, err := chromedp.Run(ctx, chromedp.Evaluate[*runtime.RemoteObject](`document`))
	if err != nil {
		return 0, fmt.Errorf("find %s %q: %w", role, name, err)
	}
	defer chromedp.Call(ctx, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: doc.ObjectID})
	// Query by role and compare names here: Chromium's query by name misses
	// some controls (a file input's name is not matched).
	res, err := chromedp.Call(ctx, accessibility.QueryAXTree, accessibility.QueryAXTreeParams{
		ObjectID: doc.ObjectID, Role: role,
	})
	if err != nil {
		return 0, fmt.Errorf("find %s %q: %w", role, name, err)
	}
	var found []cdp.BackendNodeID
	for _, n := range res.Nodes {
		if !n.Ignored && n.BackendDOMNodeID != 0 && axName(n) == name {
			found = append(found, n.BackendDOMNodeID)
		}
	}
	if len(found) != 1 {
		return 0, fmt.Errorf("find %s %q: %w (found %d)", role, name, ErrNotFound, len(found))
	}
	return found[0], nil
}

// axName returns the computed accessible name of n.
func axName(n *accessibility.Node) string {
	var s string
	if n.Name != nil {
		decodeJSON(n.Name.Value, &s)
	}
	return s
}

// WaitFor waits until exactly one element has the role and name, and
// returns it. It gives up when ctx ends; give ctx a timeout.
func WaitFor(ctx context.Context, role, name string) (cdp.BackendNodeID, error) {
	for {
		id, err := Find(ctx, role, name)
		if err == nil || !errors.Is(err, ErrNotFound) && !navigating(err) {
			return id, err
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("wait for %s %q: %w", role, name, context.Cause(ctx))
		case <-time.After(pollEvery):
		}
	}
}

// Click waits for the element with the role and name, scrolls it into
// view and clicks its centre with the mouse, as a person would: the click
// lands on whatever is on top there, so a covered control is not clicked.
func Click(ctx context.Context, role, name string) error {
	var x, y float64
	for {
		id, err := WaitFor(ctx, role, name)
		if err != nil {
			return err
		}
		x, y, err = centre(ctx, id)
		if err == nil {
			break
		}
		if !navigating(err) || ctx.Err() != nil {
			return fmt.Errorf("click %s %q: %w", role, name, err)
		}
		// The page changed between finding the element and its box: find
		// it again in the new page.
	}
	if err := chromedp.Do(ctx, chromedp.MouseClickXY(x, y)); err != nil {
		return fmt.Errorf("click %s %q: %w", role, name, err)
	}
	return nil
}

// navigating reports whether err is Chromium's answer about a page that
// was replaced under the call (a navigation or reload between two
// calls): the document, its execution context or the node is gone. A
// wait retries it on the new page; anything else is a real error.
func navigating(err error) bool {
	var e *cdproto.Error
	if !errors.As(err, &e) {
		return false
	}
	for _, m := range []string{"Cannot find context with specified id", "Execution context was destroyed", "No node with given id", "Could not find node with given id", "Cannot find object with id"} {
		if strings.Contains(e.Message, m) {
			return true
		}
	}
	return false
}

func centre(ctx context.Context, id cdp.BackendNodeID) (float64, float64, error) {
	if _, err := chromedp.Call(ctx, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: id}); err != nil {
		return 0, 0, err
	}
	q, err := chromedp.Call(ctx, dom.GetContentQuads, dom.GetContentQuadsParams{BackendNodeID: id})
	if err != nil {
		return 0, 0, err
	}
	if len(q.Quads) == 0 || len(q.Quads[0]) != 8 {
		return 0, 0, errors.New("the element has no box on screen")
	}
	var x, y float64
	for i := 0; i < 8; i += 2 {
		x += q.Quads[0][i] / 4
		y += q.Quads[0][i+1] / 4
	}
	return x, y, nil
}

// Fill waits for the form control with the role and name, focuses it,
// replaces its value with value and fires the input and change events that
// typing and leaving the field would.
func Fill(ctx context.Context, role, name, value string) error {
	id, err := WaitFor(ctx, role, name)
	if err != nil {
		return err
	}
	if _, err := chromedp.Call(ctx, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: id}); err != nil {
		return fmt.Errorf("fill %s %q: %w", role, name, err)
	}
	_, err = callOn(ctx, id, `function (v) {
		this.focus();
		const proto = this instanceof HTMLSelectElement ? HTMLSelectElement.prototype
			: this instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
		Object.getOwnPropertyDescriptor(proto, "value").set.call(this, v);
		this.dispatchEvent(new Event("input", {bubbles: true}));
		this.dispatchEvent(new Event("change", {bubbles: true}));
	}`, value)
	if err != nil {
		return fmt.Errorf("fill %s %q: %w", role, name, err)
	}
	return nil
}

// SetFiles chooses files (paths on this machine) in the file input with
// the accessible name, as picking them in the file dialog would, which
// fires its change event.
func SetFiles(ctx context.Context, name string, files ...string) error {
	id, err := WaitFor(ctx, RoleButton, name)
	if err != nil {
		return err
	}
	if _, err := chromedp.Call(ctx, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: files, BackendNodeID: id}); err != nil {
		return fmt.Errorf("choose files in %q: %w", name, err)
	}
	return nil
}

// Value returns the current value of the form control with the role and
// name.
func Value(ctx context.Context, role, name string) (string, error) {
	id, err := Find(ctx, role, name)
	if err != nil {
		return "", err
	}
	res, err := callOn(ctx, id, `function () { return String(this.value); }`)
	if err != nil {
		return "", fmt.Errorf("value of %s %q: %w", role, name, err)
	}
	var s string
	if err := decodeValue(res, &s); err != nil {
		return "", fmt.Errorf("value of %s %q: %w", role, name, err)
	}
	return s, nil
}

// callOn calls a JavaScript function with this bound to the DOM node id and
// string arguments, as a user gesture, and returns its result by value.
func callOn(ctx context.Context, id cdp.BackendNodeID, fn string, args ...string) (*runtime.RemoteObject, error) {
	obj, err := chromedp.Call(ctx, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id})
	if err != nil {
		return nil, err
	}
	defer chromedp.Call(ctx, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: obj.Object.ObjectID})
	var callArgs []*runtime.CallArgument
	for _, a := range args {
		v, err := jsonString(a)
		if err != nil {
			return nil, err
		}
		callArgs = append(callArgs, &runtime.CallArgument{Value: v})
	}
	res, err := chromedp.Call(ctx, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn, ObjectID: obj.Object.ObjectID, Arguments: callArgs,
		UserGesture: ptr(true), ReturnByValue: ptr(true),
	})
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, fmt.Errorf("script error: %s", res.ExceptionDetails.Text)
	}
	return res.Result, nil
}

// Text returns the page's visible text (document.body.innerText).
func Text(ctx context.Context) (string, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
}

// WaitText waits until the page's visible text contains text. It gives up
// when ctx ends, with the text it last saw in the error.
func WaitText(ctx context.Context, text string) error {
	_, err := WaitAnyText(ctx, text)
	return err
}

// WaitAnyText waits until the page's visible text contains one of texts,
// and returns the first of them it found. It is for a state the page may
// pass through quickly on its way to another (a clip that says "Sent" and
// then "Checked"). It gives up when ctx ends, with the text it last saw in
// the error.
func WaitAnyText(ctx context.Context, texts ...string) (string, error) {
	var last string
	for {
		s, err := Text(ctx)
		if err == nil {
			for _, text := range texts {
				if strings.Contains(s, text) {
					return text, nil
				}
			}
			last = s
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("wait for text %q: %w; the page shows:\n%s", texts, context.Cause(ctx), last)
		case <-time.After(pollEvery):
		}
	}
}

func ptr[T any](v T) *T { return &v }

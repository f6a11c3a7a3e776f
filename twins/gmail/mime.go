package gmail

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pomehq/pome/twins"
)

// header is one header line, unfolded, in message order. Gmail returns
// headers in the order the message has them, so a map will not do.
type header struct {
	Name  string
	Value string
}

// part is one node of a parsed MIME tree.
type part struct {
	headers  []header
	mimeType string
	params   map[string]string
	filename string
	body     []byte // decoded content of a leaf
	parts    []*part
}

// parsed is a whole message: its top-level part and the raw bytes.
type parsed struct {
	root *part
	raw  []byte
}

func (p *part) header(name string) string {
	for _, h := range p.headers {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

// decodeRaw accepts the base64url Gmail asks for, and, as Google's decoder
// does, the standard alphabet and missing padding too.
func decodeRaw(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	s = strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' || r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, s)
	s = strings.TrimRight(s, "=")
	s = strings.NewReplacer("+", "-", "/", "_").Replace(s)
	return base64.RawURLEncoding.DecodeString(s)
}

func encodeRaw(b []byte) string { return base64.URLEncoding.EncodeToString(b) }

// splitHead separates the header block from the body; both CRLF and bare LF
// line ends are accepted.
func splitHead(b []byte) (head, body []byte) {
	if bytes.HasPrefix(b, []byte("\r\n")) {
		return nil, b[2:]
	}
	if bytes.HasPrefix(b, []byte("\n")) {
		return nil, b[1:]
	}
	j := bytes.Index(b, []byte("\n\n"))
	k := bytes.Index(b, []byte("\r\n\r\n"))
	switch {
	case j >= 0 && (k < 0 || j < k):
		return b[:j], b[j+2:]
	case k >= 0:
		return b[:k], b[k+4:]
	}
	return b, nil
}

var wordDecoder = &mime.WordDecoder{CharsetReader: func(charset string, input io.Reader) (io.Reader, error) {
	// Latin-1 and US-ASCII are the charsets seen besides UTF-8 in practice;
	// anything else is passed through rather than refused.
	if strings.EqualFold(charset, "iso-8859-1") || strings.EqualFold(charset, "latin1") {
		b, err := io.ReadAll(input)
		if err != nil {
			return nil, err
		}
		r := make([]rune, len(b))
		for i, c := range b {
			r[i] = rune(c)
		}
		return strings.NewReader(string(r)), nil
	}
	return input, nil
}}

// noLineBreaks is the header-injection guard: a decoded value (an RFC 2047
// encoded word can carry CR/LF) or a caller-supplied one never keeps a line
// break, so it can never become a second header when written back out.
func noLineBreaks(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	s = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ").Replace(s)
	return s
}

// parseHeaders reads an unfolded, ordered header list; encoded words are
// decoded the way Gmail shows them.
func parseHeaders(head []byte) ([]header, error) {
	var out []header
	// Line by line, as bufio.ScanLines splits, without a scanner's 64 KiB
	// buffer (most of a send's cost) or its limit on a line's length.
	for len(head) > 0 {
		var b []byte
		b, head, _ = bytes.Cut(head, []byte{'\n'})
		line := strings.TrimRight(string(b), "\r")
		if line == "" {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if len(out) == 0 {
				return nil, fmt.Errorf("header block starts with a continuation line")
			}
			out[len(out)-1].Value += " " + strings.TrimSpace(line)
			continue
		}
		i := strings.IndexByte(line, ':')
		if i <= 0 || strings.ContainsAny(line[:i], " \t") {
			return nil, fmt.Errorf("malformed header line %q", truncate(line, 40))
		}
		out = append(out, header{Name: line[:i], Value: strings.TrimSpace(line[i+1:])})
	}
	for i := range out {
		if dec, err := wordDecoder.DecodeHeader(out[i].Value); err == nil {
			out[i].Value = dec
		}
		out[i].Value = noLineBreaks(out[i].Value)
	}
	return out, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// parseMessage parses RFC 2822 bytes into a MIME tree.
func parseMessage(raw []byte) (*parsed, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, fmt.Errorf("empty message")
	}
	head, body := splitHead(raw)
	hs, err := parseHeaders(head)
	if err != nil {
		return nil, err
	}
	root := buildPart(hs, body, "text/plain", 0)
	return &parsed{root: root, raw: raw}, nil
}

func buildPart(hs []header, body []byte, defaultType string, depth int) *part {
	p := &part{headers: hs}
	ct := p.header("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if ct == "" || err != nil {
		mt, params = defaultType, map[string]string{}
		if defaultType == "text/plain" {
			params["charset"] = "us-ascii"
		}
	}
	p.mimeType, p.params = strings.ToLower(mt), params
	if _, dp, err := mime.ParseMediaType(p.header("Content-Disposition")); err == nil && dp["filename"] != "" {
		p.filename = dp["filename"]
	} else if params["name"] != "" {
		p.filename = params["name"]
	}
	p.filename = noLineBreaks(p.filename)
	if strings.HasPrefix(p.mimeType, "multipart/") && params["boundary"] != "" && depth < 20 {
		child := "text/plain"
		if p.mimeType == "multipart/digest" {
			child = "message/rfc822"
		}
		for _, chunk := range splitMultipart(body, params["boundary"]) {
			h, b := splitHead(chunk)
			chs, err := parseHeaders(h)
			if err != nil {
				chs = nil
			}
			p.parts = append(p.parts, buildPart(chs, b, child, depth+1))
		}
		return p
	}
	p.body = decodeTransfer(body, p.header("Content-Transfer-Encoding"))
	return p
}

// splitMultipart cuts a multipart body at its boundary lines; the line end
// before a boundary belongs to the boundary (RFC 2046).
func splitMultipart(body []byte, boundary string) [][]byte {
	delim := []byte("--" + boundary)
	var parts [][]byte
	var cur []byte
	in := false
	lines := bytes.SplitAfter(body, []byte("\n"))
	for _, line := range lines {
		trimmed := bytes.TrimRight(line, " \t\r\n")
		if bytes.Equal(trimmed, delim) || bytes.Equal(trimmed, append(append([]byte{}, delim...), '-', '-')) {
			if in {
				parts = append(parts, trimLineEnd(cur))
			}
			cur = nil
			if bytes.HasSuffix(trimmed, []byte("--")) && !bytes.Equal(trimmed, delim) {
				return parts
			}
			in = true
			continue
		}
		if in {
			cur = append(cur, line...)
		}
	}
	if in && len(cur) > 0 {
		parts = append(parts, trimLineEnd(cur))
	}
	return parts
}

func trimLineEnd(b []byte) []byte {
	if bytes.HasSuffix(b, []byte("\r\n")) {
		return b[:len(b)-2]
	}
	if bytes.HasSuffix(b, []byte("\n")) {
		return b[:len(b)-1]
	}
	return b
}

func decodeTransfer(body []byte, cte string) []byte {
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "base64":
		clean := bytes.Map(func(r rune) rune {
			if r == '\r' || r == '\n' || r == ' ' || r == '\t' {
				return -1
			}
			return r
		}, body)
		out, err := base64.StdEncoding.DecodeString(string(clean))
		if err != nil {
			out, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(string(clean), "="))
			if err != nil {
				return body
			}
		}
		return out
	case "quoted-printable":
		out, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body)))
		if err != nil {
			return body
		}
		return out
	}
	return body
}

// leaves walks the tree depth first.
func (p *part) walk(f func(*part, string)) { p.walkID("", f) }

func (p *part) walkID(id string, f func(*part, string)) {
	f(p, id)
	for i, c := range p.parts {
		cid := fmt.Sprint(i)
		if id != "" {
			cid = id + "." + cid
		}
		c.walkID(cid, f)
	}
}

// isAttachment is Gmail's rule: a leaf with a filename.
func (p *part) isAttachment() bool { return len(p.parts) == 0 && p.filename != "" }

// text returns the plain-text body: the first text/plain leaf that is not
// an attachment, or the first text/html one with tags stripped.
func (pm *parsed) text() string {
	var plain, htm string
	pm.root.walk(func(p *part, _ string) {
		if len(p.parts) > 0 || p.isAttachment() {
			return
		}
		switch p.mimeType {
		case "text/plain":
			if plain == "" {
				plain = toUTF8(p.body, p.params["charset"])
			}
		case "text/html":
			if htm == "" {
				htm = toUTF8(p.body, p.params["charset"])
			}
		}
	})
	if plain != "" {
		return plain
	}
	return stripHTML(htm)
}

// htmlBody returns the first text/html leaf.
func (pm *parsed) htmlBody() string {
	var htm string
	pm.root.walk(func(p *part, _ string) {
		if htm == "" && len(p.parts) == 0 && !p.isAttachment() && p.mimeType == "text/html" {
			htm = toUTF8(p.body, p.params["charset"])
		}
	})
	return htm
}

// attached is an attachment leaf with its part id.
type attached struct {
	*part
	id string
}

func (pm *parsed) attachments() []attached {
	var out []attached
	pm.root.walk(func(p *part, id string) {
		if p.isAttachment() {
			out = append(out, attached{p, id})
		}
	})
	return out
}

// attachmentID names an attachment by its message and part, opaque like
// Gmail's ids and stable across reads.
func attachmentID(msgID, partID string) string {
	return "ANGjdJ" + base64.RawURLEncoding.EncodeToString([]byte(msgID+"."+partID))
}

// parseAttachmentID is attachmentID's inverse.
func parseAttachmentID(id string) (msgID, partID string, ok bool) {
	rest, found := strings.CutPrefix(id, "ANGjdJ")
	if !found {
		return "", "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil {
		return "", "", false
	}
	msgID, partID, ok = strings.Cut(string(b), ".")
	return msgID, partID, ok
}

func toUTF8(b []byte, charset string) string {
	if utf8.Valid(b) {
		return string(b)
	}
	if strings.EqualFold(charset, "iso-8859-1") || strings.EqualFold(charset, "latin1") || strings.EqualFold(charset, "windows-1252") {
		r := make([]rune, len(b))
		for i, c := range b {
			r[i] = rune(c)
		}
		return string(r)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

var (
	tagRE   = regexp.MustCompile(`(?s)<(script|style)[^>]*>.*?</(script|style)>|<[^>]*>`)
	spaceRE = regexp.MustCompile(`\s+`)
)

func stripHTML(s string) string {
	s = tagRE.ReplaceAllString(s, " ")
	return html.UnescapeString(s)
}

// snippet is Gmail's: the start of the text body, whitespace collapsed,
// HTML-escaped (Gmail escapes snippets).
func snippet(text string) string {
	s := strings.TrimSpace(spaceRE.ReplaceAllString(text, " "))
	if utf8.RuneCountInString(s) > 200 {
		r := []rune(s)
		s = strings.TrimSpace(string(r[:200]))
	}
	return html.EscapeString(s)
}

// addresses parses an address-list header into lower-case addresses.
func addresses(v string) ([]string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return []string{}, nil
	}
	list, err := mail.ParseAddressList(v)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(list))
	for _, a := range list {
		out = append(out, strings.ToLower(a.Address))
	}
	return out, nil
}

// fillDerived parses a message's raw bytes and sets the derived fields.
// Unparseable address headers are refused: Gmail answers "Invalid To header".
func fillDerived(m *Message, raw []byte) (*parsed, error) {
	pm, err := parseMessage(raw)
	if err != nil {
		return nil, gerr(twins.Invalid, "invalidArgument", "Invalid RFC 2822 message: %v", err)
	}
	r := pm.root
	m.Raw = encodeRaw(raw)
	m.SizeEstimate = len(raw)
	m.From = r.header("From")
	for _, f := range []struct {
		name string
		dst  *[]string
	}{{"To", &m.To}, {"Cc", &m.Cc}, {"Bcc", &m.Bcc}} {
		list, err := addresses(r.header(f.name))
		if err != nil {
			return nil, gerr(twins.Invalid, "invalidArgument", "Invalid %s header", f.name)
		}
		*f.dst = list
	}
	m.Subject = r.header("Subject")
	m.MessageIDHdr = r.header("Message-ID")
	m.InReplyTo = r.header("In-Reply-To")
	m.References = strings.Fields(r.header("References"))
	m.Snippet = snippet(pm.text())
	m.HasAttachment = len(pm.attachments()) > 0
	return pm, nil
}

// fromAddress returns the address of a From header value.
func fromAddress(v string) string {
	if a, err := mail.ParseAddress(v); err == nil {
		return strings.ToLower(a.Address)
	}
	return strings.ToLower(strings.Trim(strings.TrimSpace(v), "<>"))
}

// composed is a message built from fields (seeds, MCP tools) rather than
// sent as raw RFC 2822.
type composed struct {
	From        string
	To, Cc, Bcc []string
	Subject     string
	Text, HTML  string
	Date        time.Time
	MessageID   string
	InReplyTo   string
	References  string
	Attachments []attachment
	// Boundary seeds the MIME boundaries, so that the bytes are the same in
	// every run.
	Boundary string
}

type attachment struct {
	Filename string
	MimeType string
	Data     []byte
	// Inline parts (an image an HTML body shows) carry a Content-ID.
	Inline    bool
	ContentID string
}

// validateAddresses checks a list of plain addresses, refusing anything a
// header could be smuggled through.
func validateAddresses(field string, list []string) error {
	for i, a := range list {
		if strings.ContainsAny(a, "\r\n,;") {
			return gerr(twins.Invalid, "invalidArgument", "Invalid %s address at index %d: %q", field, i, a).WithField(field)
		}
		if _, err := mail.ParseAddress(a); err != nil {
			return gerr(twins.Invalid, "invalidArgument", "Invalid %s address at index %d: %q", field, i, a).WithField(field)
		}
	}
	return nil
}

var plainPhrase = regexp.MustCompile(`^[A-Za-z0-9!#$%&'*+/=?^_{|}~ -]+$`)

// formatAddress writes an address the way mail clients do: a bare address
// without a name, the name unquoted when it is plain words, quoted or
// encoded otherwise.
func formatAddress(name, addr string) string {
	name = strings.TrimSpace(noLineBreaks(name))
	switch {
	case name == "":
		return addr
	case plainPhrase.MatchString(name):
		return name + " <" + addr + ">"
	}
	return (&mail.Address{Name: name, Address: addr}).String()
}

func formatAddressList(list []string) string {
	out := make([]string, 0, len(list))
	for _, a := range list {
		if p, err := mail.ParseAddress(a); err == nil {
			out = append(out, formatAddress(p.Name, p.Address))
		}
	}
	return strings.Join(out, ", ")
}

// encodeHeader writes a header value, as an encoded word when it is not
// plain ASCII, and never with a line break.
func encodeHeader(v string) string {
	v = noLineBreaks(v)
	for _, r := range v {
		if r >= 0x80 {
			return mime.BEncoding.Encode("UTF-8", v)
		}
	}
	return v
}

// build renders the message as RFC 2822 bytes.
func (c composed) build() []byte {
	var b bytes.Buffer
	hdr := func(name, value string) {
		if value != "" {
			fmt.Fprintf(&b, "%s: %s\r\n", name, value)
		}
	}
	hdr("MIME-Version", "1.0")
	hdr("Date", c.Date.Format(time.RFC1123Z))
	hdr("Message-ID", c.MessageID)
	hdr("In-Reply-To", noLineBreaks(c.InReplyTo))
	hdr("References", noLineBreaks(c.References))
	hdr("Subject", encodeHeader(c.Subject))
	if c.From != "" {
		if a, err := mail.ParseAddress(c.From); err == nil {
			hdr("From", formatAddress(a.Name, a.Address))
		} else {
			hdr("From", encodeHeader(c.From))
		}
	}
	hdr("To", formatAddressList(c.To))
	hdr("Cc", formatAddressList(c.Cc))
	hdr("Bcc", formatAddressList(c.Bcc))

	bnd := func(n int) string { return fmt.Sprintf("%024x%s%d", 0, c.Boundary, n) }
	textPart := func(w *bytes.Buffer, mt, body string) {
		fmt.Fprintf(w, "Content-Type: %s; charset=\"UTF-8\"\r\n", mt)
		if isPlain7bit(body) {
			fmt.Fprintf(w, "\r\n%s\r\n", crlf(body))
			return
		}
		fmt.Fprintf(w, "Content-Transfer-Encoding: quoted-printable\r\n\r\n")
		qp := quotedprintable.NewWriter(w)
		qp.Write([]byte(crlf(body)))
		qp.Close()
		w.WriteString("\r\n")
	}
	// alt writes the text body, as multipart/alternative when there is HTML
	// (with a plain-text rendering when the caller gave none, as Gmail's
	// composer does).
	alt := func(w *bytes.Buffer) {
		if c.HTML == "" {
			textPart(w, "text/plain", c.Text)
			return
		}
		text := c.Text
		if text == "" {
			text = strings.TrimSpace(spaceRE.ReplaceAllString(stripHTML(c.HTML), " "))
		}
		bd := bnd(1)
		fmt.Fprintf(w, "Content-Type: multipart/alternative; boundary=\"%s\"\r\n\r\n", bd)
		fmt.Fprintf(w, "--%s\r\n", bd)
		textPart(w, "text/plain", text)
		fmt.Fprintf(w, "--%s\r\n", bd)
		textPart(w, "text/html", c.HTML)
		fmt.Fprintf(w, "--%s--\r\n", bd)
	}
	if len(c.Attachments) == 0 {
		var body bytes.Buffer
		alt(&body)
		b.Write(body.Bytes())
		return b.Bytes()
	}
	bd := bnd(0)
	fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=\"%s\"\r\n\r\n", bd)
	var body bytes.Buffer
	alt(&body)
	fmt.Fprintf(&b, "--%s\r\n", bd)
	b.Write(body.Bytes())
	for _, a := range c.Attachments {
		fmt.Fprintf(&b, "--%s\r\n", bd)
		mt := a.MimeType
		if mt == "" {
			mt = "application/octet-stream"
		}
		name := mime.QEncoding.Encode("UTF-8", noLineBreaks(a.Filename))
		fmt.Fprintf(&b, "Content-Type: %s; name=\"%s\"\r\n", mt, name)
		disposition := "attachment"
		if a.Inline {
			disposition = "inline"
		}
		fmt.Fprintf(&b, "Content-Disposition: %s; filename=\"%s\"\r\n", disposition, name)
		if a.ContentID != "" {
			fmt.Fprintf(&b, "Content-ID: <%s>\r\n", noLineBreaks(strings.Trim(a.ContentID, "<>")))
		}
		fmt.Fprintf(&b, "Content-Transfer-Encoding: base64\r\n\r\n")
		enc := base64.StdEncoding.EncodeToString(a.Data)
		for len(enc) > 76 {
			b.WriteString(enc[:76] + "\r\n")
			enc = enc[76:]
		}
		b.WriteString(enc + "\r\n")
	}
	fmt.Fprintf(&b, "--%s--\r\n", bd)
	return b.Bytes()
}

func isPlain7bit(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		if len(line) > 900 {
			return false
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || (s[i] < 0x20 && s[i] != '\n' && s[i] != '\r' && s[i] != '\t') {
			return false
		}
	}
	return true
}

func crlf(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\n", "\r\n")
}

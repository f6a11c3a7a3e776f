// Package scaleseed builds seeds of a chosen size for the twins whose
// write cost is measured against the size of their world (pome-bench's
// scale mode and the Redis store's benchmarks): n issues, messages,
// customers or received emails, each like the others, in the seed format
// every twin reads.
package scaleseed

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/pomehq/pome/twins/github"
	"github.com/pomehq/pome/twins/slack"
)

// GitHub is acme/api with n issues (numbers 1..n), each with one
// comment.
func GitHub(n int) (json.RawMessage, error) {
	s := github.DefaultSeed()
	s.Clock = "2026-01-05T09:00:00Z"
	s.Repos = []github.SeedRepo{{
		Owner: "acme", Name: "api", Description: "Acme orders API", DefaultBranch: "main",
		Files:         map[string]string{"README.md": "# api\n\nThe Acme orders API.\n"},
		Labels:        []github.SeedLabel{{Name: "bug", Color: "d73a4a"}, {Name: "feature", Color: "a2eeef"}},
		Collaborators: []string{"pome-agent"},
	}}
	issues := make([]github.SeedIssue, n)
	for i := range issues {
		label := "bug"
		if i%2 == 1 {
			label = "feature"
		}
		issues[i] = github.SeedIssue{
			Number: i + 1,
			Title:  "Issue " + strconv.Itoa(i+1) + ": 500 error on POST /orders after deploy",
			Body:   "Since this morning's deploy, POST /orders answers 500 for every request.",
			User:   "pome-agent", Labels: []string{label},
			Comments: []github.SeedComment{{User: "pome-agent", Body: "Looking into it."}},
		}
	}
	s.Repos[0].Issues = issues
	return json.Marshal(s)
}

// Slack is the default workspace whose #general holds n messages.
func Slack(n int) (json.RawMessage, error) {
	s := slack.DefaultSeed()
	msgs := make([]slack.SeedMessage, n)
	for i := range msgs {
		msgs[i] = slack.SeedMessage{User: "pome-agent", Text: fmt.Sprintf("Message %d: deploy looks healthy.", i+1)}
	}
	found := false
	for i := range s.Channels {
		if s.Channels[i].Name == "general" {
			s.Channels[i].Messages, found = msgs, true
		}
	}
	if !found {
		return nil, errors.New("the default Slack seed has no #general")
	}
	return json.Marshal(s)
}

// Stripe is an account with n customers.
func Stripe(n int) (json.RawMessage, error) {
	type customer struct {
		Email string `json:"email"`
		Name  string `json:"name"`
	}
	cs := make([]customer, n)
	for i := range cs {
		cs[i] = customer{Email: fmt.Sprintf("customer%d@example.com", i+1), Name: fmt.Sprintf("Customer %d", i+1)}
	}
	return json.Marshal(map[string]any{"customers": cs})
}

// Gmail is one mailbox (the sandbox's user) holding n received
// messages.
func Gmail(n int) (json.RawMessage, error) {
	type message struct {
		From    string   `json:"from"`
		To      []string `json:"to"`
		Subject string   `json:"subject"`
		Text    string   `json:"text"`
		Labels  []string `json:"labels"`
	}
	ms := make([]message, n)
	for i := range ms {
		ms[i] = message{From: "bob@example.com", To: []string{"agent@acme.test"}, Subject: fmt.Sprintf("Report %d", i+1),
			Text: "The deploy looks healthy.", Labels: []string{"INBOX"}}
	}
	return json.Marshal(map[string]any{"mailboxes": []map[string]any{{"address": "agent@acme.test", "name": "Agent", "messages": ms}}})
}

package stripe

import (
	"github.com/pomehq/pome/twins"
)

// The object types below are both the world's records and the API's
// response bodies: field names and JSON types follow Stripe's API reference
// (and what stripe-go decodes). Fields typed any are expandable references
// (an id string, null, or the expanded object in a response) or fields the
// twin always answers null.

// Address is a postal address; every field is nullable.
type Address struct {
	City       *string `json:"city"`
	Country    *string `json:"country"`
	Line1      *string `json:"line1"`
	Line2      *string `json:"line2"`
	PostalCode *string `json:"postal_code"`
	State      *string `json:"state"`
}

// InvoiceSettings is a customer's invoice configuration.
type InvoiceSettings struct {
	CustomFields         any     `json:"custom_fields"`
	DefaultPaymentMethod any     `json:"default_payment_method"`
	Footer               *string `json:"footer"`
	RenderingOptions     any     `json:"rendering_options"`
}

// Customer is a Stripe customer.
type Customer struct {
	ID                  string            `json:"id"`
	Object              string            `json:"object"`
	Address             *Address          `json:"address"`
	Balance             int64             `json:"balance"`
	Created             int64             `json:"created"`
	Currency            *string           `json:"currency"`
	DefaultSource       any               `json:"default_source"`
	Deleted             bool              `json:"deleted,omitempty"`
	Delinquent          bool              `json:"delinquent"`
	Description         *string           `json:"description"`
	Discount            any               `json:"discount"`
	Email               *string           `json:"email"`
	InvoicePrefix       string            `json:"invoice_prefix"`
	InvoiceSettings     InvoiceSettings   `json:"invoice_settings"`
	Livemode            bool              `json:"livemode"`
	Metadata            map[string]string `json:"metadata"`
	Name                *string           `json:"name"`
	NextInvoiceSequence int64             `json:"next_invoice_sequence"`
	Phone               *string           `json:"phone"`
	PreferredLocales    []string          `json:"preferred_locales"`
	Shipping            any               `json:"shipping"`
	TaxExempt           string            `json:"tax_exempt"`
	TestClock           any               `json:"test_clock"`
}

// DeletedObject is Stripe's answer to a delete.
type DeletedObject struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Deleted bool   `json:"deleted"`
}

// BillingDetails are the billing details on a payment method.
type BillingDetails struct {
	Address Address `json:"address"`
	Email   *string `json:"email"`
	Name    *string `json:"name"`
	Phone   *string `json:"phone"`
	TaxID   *string `json:"tax_id"`
}

// CardChecks are the results of the card's verification checks.
type CardChecks struct {
	AddressLine1Check      *string `json:"address_line1_check"`
	AddressPostalCodeCheck *string `json:"address_postal_code_check"`
	CvcCheck               *string `json:"cvc_check"`
}

// CardNetworks lists the networks a card can be charged on.
type CardNetworks struct {
	Available []string `json:"available"`
	Preferred *string  `json:"preferred"`
}

// ThreeDSecureUsage says whether the card supports 3D Secure.
type ThreeDSecureUsage struct {
	Supported bool `json:"supported"`
}

// Card is a card payment method's details.
type Card struct {
	Brand             string            `json:"brand"`
	Checks            CardChecks        `json:"checks"`
	Country           *string           `json:"country"`
	DisplayBrand      string            `json:"display_brand"`
	ExpMonth          int64             `json:"exp_month"`
	ExpYear           int64             `json:"exp_year"`
	Fingerprint       string            `json:"fingerprint"`
	Funding           string            `json:"funding"`
	GeneratedFrom     any               `json:"generated_from"`
	Last4             string            `json:"last4"`
	Networks          CardNetworks      `json:"networks"`
	RegulatedStatus   *string           `json:"regulated_status"`
	ThreeDSecureUsage ThreeDSecureUsage `json:"three_d_secure_usage"`
	Wallet            any               `json:"wallet"`
}

// PaymentMethod is a Stripe payment method (cards only).
type PaymentMethod struct {
	ID             string            `json:"id"`
	Object         string            `json:"object"`
	AllowRedisplay string            `json:"allow_redisplay"`
	BillingDetails BillingDetails    `json:"billing_details"`
	Card           *Card             `json:"card"`
	Created        int64             `json:"created"`
	Customer       any               `json:"customer"`
	Livemode       bool              `json:"livemode"`
	Metadata       map[string]string `json:"metadata"`
	Type           string            `json:"type"`
}

// PaymentError is a PaymentIntent's last_payment_error.
type PaymentError struct {
	Charge        *string        `json:"charge,omitempty"`
	Code          string         `json:"code,omitempty"`
	DeclineCode   string         `json:"decline_code,omitempty"`
	DocURL        string         `json:"doc_url,omitempty"`
	Message       string         `json:"message"`
	Param         string         `json:"param,omitempty"`
	PaymentMethod *PaymentMethod `json:"payment_method,omitempty"`
	Type          string         `json:"type"`
}

// AutomaticPaymentMethods is a PaymentIntent's automatic payment method
// configuration.
type AutomaticPaymentMethods struct {
	AllowRedirects string `json:"allow_redirects,omitempty"`
	Enabled        bool   `json:"enabled"`
}

// NextAction is what the customer must do before the PaymentIntent can
// proceed (3D Secure).
type NextAction struct {
	Type          string         `json:"type"`
	RedirectToURL *RedirectToURL `json:"redirect_to_url,omitempty"`
	UseStripeSDK  map[string]any `json:"use_stripe_sdk,omitempty"`
	// CryptoDisplayDetails is the deposit address of a crypto PaymentIntent
	// (type display_crypto_deposit_information).
	CryptoDisplayDetails map[string]any `json:"crypto_display_details,omitempty"`
}

// RedirectToURL is the redirect next action.
type RedirectToURL struct {
	ReturnURL string `json:"return_url"`
	URL       string `json:"url"`
}

// PaymentIntent is a Stripe PaymentIntent.
type PaymentIntent struct {
	ID                                string                   `json:"id"`
	Object                            string                   `json:"object"`
	Amount                            int64                    `json:"amount"`
	AmountCapturable                  int64                    `json:"amount_capturable"`
	AmountDetails                     map[string]any           `json:"amount_details"`
	AmountReceived                    int64                    `json:"amount_received"`
	Application                       any                      `json:"application"`
	ApplicationFeeAmount              *int64                   `json:"application_fee_amount"`
	AutomaticPaymentMethods           *AutomaticPaymentMethods `json:"automatic_payment_methods"`
	CanceledAt                        *int64                   `json:"canceled_at"`
	CancellationReason                *string                  `json:"cancellation_reason"`
	CaptureMethod                     string                   `json:"capture_method"`
	ClientSecret                      string                   `json:"client_secret"`
	ConfirmationMethod                string                   `json:"confirmation_method"`
	Created                           int64                    `json:"created"`
	Currency                          string                   `json:"currency"`
	Customer                          any                      `json:"customer"`
	Description                       *string                  `json:"description"`
	ExcludedPaymentMethodTypes        any                      `json:"excluded_payment_method_types"`
	LastPaymentError                  *PaymentError            `json:"last_payment_error"`
	LatestCharge                      any                      `json:"latest_charge"`
	Livemode                          bool                     `json:"livemode"`
	Metadata                          map[string]string        `json:"metadata"`
	NextAction                        *NextAction              `json:"next_action"`
	OnBehalfOf                        any                      `json:"on_behalf_of"`
	PaymentMethod                     any                      `json:"payment_method"`
	PaymentMethodConfigurationDetails any                      `json:"payment_method_configuration_details"`
	PaymentMethodOptions              map[string]any           `json:"payment_method_options"`
	PaymentMethodTypes                []string                 `json:"payment_method_types"`
	Processing                        any                      `json:"processing"`
	ReceiptEmail                      *string                  `json:"receipt_email"`
	Review                            any                      `json:"review"`
	SetupFutureUsage                  *string                  `json:"setup_future_usage"`
	Shipping                          any                      `json:"shipping"`
	Source                            any                      `json:"source"`
	StatementDescriptor               *string                  `json:"statement_descriptor"`
	StatementDescriptorSuffix         *string                  `json:"statement_descriptor_suffix"`
	Status                            string                   `json:"status"`
	TransferData                      any                      `json:"transfer_data"`
	TransferGroup                     *string                  `json:"transfer_group"`
}

// Outcome is a charge's outcome.
type Outcome struct {
	AdviceCode         *string `json:"advice_code"`
	NetworkAdviceCode  *string `json:"network_advice_code"`
	NetworkDeclineCode *string `json:"network_decline_code"`
	NetworkStatus      *string `json:"network_status"`
	Reason             *string `json:"reason"`
	RiskLevel          string  `json:"risk_level"`
	RiskScore          int64   `json:"risk_score"`
	SellerMessage      *string `json:"seller_message"`
	Type               string  `json:"type"`
}

// PaymentMethodDetails is the card a charge was made on.
type PaymentMethodDetails struct {
	Card *ChargeCard `json:"card"`
	Type string      `json:"type"`
}

// ChargeCard is the card section of a charge's payment_method_details.
type ChargeCard struct {
	AmountAuthorized         *int64         `json:"amount_authorized"`
	AuthorizationCode        *string        `json:"authorization_code"`
	Brand                    string         `json:"brand"`
	Checks                   CardChecks     `json:"checks"`
	Country                  *string        `json:"country"`
	ExpMonth                 int64          `json:"exp_month"`
	ExpYear                  int64          `json:"exp_year"`
	ExtendedAuthorization    map[string]any `json:"extended_authorization"`
	Fingerprint              string         `json:"fingerprint"`
	Funding                  string         `json:"funding"`
	IncrementalAuthorization map[string]any `json:"incremental_authorization"`
	Installments             any            `json:"installments"`
	Last4                    string         `json:"last4"`
	Mandate                  *string        `json:"mandate"`
	Multicapture             map[string]any `json:"multicapture"`
	Network                  string         `json:"network"`
	NetworkToken             map[string]any `json:"network_token"`
	NetworkTransactionID     *string        `json:"network_transaction_id"`
	Overcapture              map[string]any `json:"overcapture"`
	RegulatedStatus          *string        `json:"regulated_status"`
	ThreeDSecure             any            `json:"three_d_secure"`
	TransactionLinkID        *string        `json:"transaction_link_id"`
	Wallet                   any            `json:"wallet"`
}

// Charge is a Stripe charge, created when a PaymentIntent is confirmed.
type Charge struct {
	ID                            string                `json:"id"`
	Object                        string                `json:"object"`
	Amount                        int64                 `json:"amount"`
	AmountCaptured                int64                 `json:"amount_captured"`
	AmountRefunded                int64                 `json:"amount_refunded"`
	Application                   any                   `json:"application"`
	ApplicationFee                any                   `json:"application_fee"`
	ApplicationFeeAmount          *int64                `json:"application_fee_amount"`
	BalanceTransaction            any                   `json:"balance_transaction"`
	BillingDetails                BillingDetails        `json:"billing_details"`
	CalculatedStatementDescriptor *string               `json:"calculated_statement_descriptor"`
	Captured                      bool                  `json:"captured"`
	Created                       int64                 `json:"created"`
	Currency                      string                `json:"currency"`
	Customer                      any                   `json:"customer"`
	Description                   *string               `json:"description"`
	Disputed                      bool                  `json:"disputed"`
	FailureBalanceTransaction     any                   `json:"failure_balance_transaction"`
	FailureCode                   *string               `json:"failure_code"`
	FailureMessage                *string               `json:"failure_message"`
	FraudDetails                  map[string]any        `json:"fraud_details"`
	Livemode                      bool                  `json:"livemode"`
	Metadata                      map[string]string     `json:"metadata"`
	OnBehalfOf                    any                   `json:"on_behalf_of"`
	Outcome                       *Outcome              `json:"outcome"`
	Paid                          bool                  `json:"paid"`
	PaymentIntent                 any                   `json:"payment_intent"`
	PaymentMethod                 *string               `json:"payment_method"`
	PaymentMethodDetails          *PaymentMethodDetails `json:"payment_method_details"`
	ReceiptEmail                  *string               `json:"receipt_email"`
	ReceiptNumber                 *string               `json:"receipt_number"`
	ReceiptURL                    *string               `json:"receipt_url"`
	Refunded                      bool                  `json:"refunded"`
	Review                        any                   `json:"review"`
	Shipping                      any                   `json:"shipping"`
	SourceTransfer                any                   `json:"source_transfer"`
	StatementDescriptor           *string               `json:"statement_descriptor"`
	StatementDescriptorSuffix     *string               `json:"statement_descriptor_suffix"`
	Status                        string                `json:"status"`
	TransferData                  any                   `json:"transfer_data"`
	TransferGroup                 *string               `json:"transfer_group"`
}

// Refund is a Stripe refund.
type Refund struct {
	ID                     string            `json:"id"`
	Object                 string            `json:"object"`
	Amount                 int64             `json:"amount"`
	BalanceTransaction     any               `json:"balance_transaction"`
	Charge                 any               `json:"charge"`
	Created                int64             `json:"created"`
	Currency               string            `json:"currency"`
	DestinationDetails     map[string]any    `json:"destination_details"`
	Metadata               map[string]string `json:"metadata"`
	PaymentIntent          any               `json:"payment_intent"`
	Reason                 *string           `json:"reason"`
	ReceiptNumber          *string           `json:"receipt_number"`
	SourceTransferReversal any               `json:"source_transfer_reversal"`
	Status                 string            `json:"status"`
	TransferReversal       any               `json:"transfer_reversal"`
}

// Product is a Stripe product.
type Product struct {
	ID                  string            `json:"id"`
	Object              string            `json:"object"`
	Active              bool              `json:"active"`
	Created             int64             `json:"created"`
	DefaultPrice        any               `json:"default_price"`
	Description         *string           `json:"description"`
	Images              []string          `json:"images"`
	Livemode            bool              `json:"livemode"`
	MarketingFeatures   []any             `json:"marketing_features"`
	Metadata            map[string]string `json:"metadata"`
	Name                string            `json:"name"`
	PackageDimensions   any               `json:"package_dimensions"`
	Shippable           *bool             `json:"shippable"`
	StatementDescriptor *string           `json:"statement_descriptor"`
	TaxCode             any               `json:"tax_code"`
	Type                string            `json:"type"`
	UnitLabel           *string           `json:"unit_label"`
	Updated             int64             `json:"updated"`
	URL                 *string           `json:"url"`
}

// Recurring is a recurring price's billing interval.
type Recurring struct {
	Interval        string  `json:"interval"`
	IntervalCount   int64   `json:"interval_count"`
	Meter           *string `json:"meter"`
	TrialPeriodDays *int64  `json:"trial_period_days"`
	UsageType       string  `json:"usage_type"`
}

// Price is a Stripe price.
type Price struct {
	ID                string            `json:"id"`
	Object            string            `json:"object"`
	Active            bool              `json:"active"`
	BillingScheme     string            `json:"billing_scheme"`
	Created           int64             `json:"created"`
	Currency          string            `json:"currency"`
	CustomUnitAmount  any               `json:"custom_unit_amount"`
	Livemode          bool              `json:"livemode"`
	LookupKey         *string           `json:"lookup_key"`
	Metadata          map[string]string `json:"metadata"`
	Nickname          *string           `json:"nickname"`
	Product           any               `json:"product"`
	Recurring         *Recurring        `json:"recurring"`
	TaxBehavior       string            `json:"tax_behavior"`
	TiersMode         *string           `json:"tiers_mode"`
	TransformQuantity any               `json:"transform_quantity"`
	Type              string            `json:"type"`
	UnitAmount        *int64            `json:"unit_amount"`
	UnitAmountDecimal *string           `json:"unit_amount_decimal"`
}

// FeeDetail is one fee on a balance transaction.
type FeeDetail struct {
	Amount      int64   `json:"amount"`
	Application *string `json:"application"`
	Currency    string  `json:"currency"`
	Description string  `json:"description"`
	Type        string  `json:"type"`
}

// BalanceTransaction is one movement of funds.
type BalanceTransaction struct {
	ID                string      `json:"id"`
	Object            string      `json:"object"`
	Amount            int64       `json:"amount"`
	AvailableOn       int64       `json:"available_on"`
	BalanceType       string      `json:"balance_type"`
	Created           int64       `json:"created"`
	Currency          string      `json:"currency"`
	Description       *string     `json:"description"`
	ExchangeRate      *float64    `json:"exchange_rate"`
	Fee               int64       `json:"fee"`
	FeeDetails        []FeeDetail `json:"fee_details"`
	Net               int64       `json:"net"`
	ReportingCategory string      `json:"reporting_category"`
	Source            any         `json:"source"`
	Status            string      `json:"status"`
	Type              string      `json:"type"`
}

// BalanceAmount is one currency's amount in a balance.
type BalanceAmount struct {
	Amount      int64            `json:"amount"`
	Currency    string           `json:"currency"`
	SourceTypes map[string]int64 `json:"source_types,omitempty"`
}

// Balance is the account balance.
type Balance struct {
	Object          string          `json:"object"`
	Available       []BalanceAmount `json:"available"`
	ConnectReserved []BalanceAmount `json:"connect_reserved"`
	Livemode        bool            `json:"livemode"`
	Pending         []BalanceAmount `json:"pending"`
}

// EventData is an event's payload: the object as it was after the change,
// and for updates the attributes it had before.
type EventData struct {
	Object             Snapshot       `json:"object"`
	PreviousAttributes map[string]any `json:"previous_attributes,omitempty"`
}

// EventRequest names the API request that caused an event.
type EventRequest struct {
	ID             *string `json:"id"`
	IdempotencyKey *string `json:"idempotency_key"`
}

// Event is a Stripe event.
type Event struct {
	ID              string       `json:"id"`
	Object          string       `json:"object"`
	Account         *string      `json:"account,omitempty"`
	APIVersion      string       `json:"api_version"`
	Created         int64        `json:"created"`
	Data            EventData    `json:"data"`
	Livemode        bool         `json:"livemode"`
	PendingWebhooks int64        `json:"pending_webhooks"`
	Request         EventRequest `json:"request"`
	Type            string       `json:"type"`
	// Sized remembers the event's encoded size for the world's budget
	// measures: an event never changes once emitted.
	Sized twins.SizeMemo `json:"-"`
}

// List is Stripe's list envelope.
type List[T any] struct {
	Object  string `json:"object"`
	Data    []T    `json:"data"`
	HasMore bool   `json:"has_more"`
	URL     string `json:"url"`
}

// SearchResult is Stripe's search envelope.
type SearchResult[T any] struct {
	Object     string  `json:"object"`
	Data       []T     `json:"data"`
	HasMore    bool    `json:"has_more"`
	NextPage   *string `json:"next_page"`
	TotalCount *int64  `json:"total_count,omitempty"`
	URL        string  `json:"url"`
}

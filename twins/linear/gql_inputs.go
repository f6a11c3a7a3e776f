// Linear's input types, as far as gql_schema.graphql declares them: the
// GraphQL engine decodes arguments into these.

package linear

import graphql "github.com/graph-gophers/graphql-go"

// inBooleanComparator is Linear's BooleanComparator.
type inBooleanComparator struct {
	Eq  *bool
	Neq *bool
}

// inCommentCreateInput is Linear's CommentCreateInput.
type inCommentCreateInput struct {
	Body                  *string
	CreateAsUser          *string
	CreatedAt             *gqlTime
	DisplayIconUrl        *string
	DoNotSubscribeToIssue *bool
	Id                    *string
	IssueId               *string
	ParentId              *string
}

// inCommentFilter is Linear's CommentFilter.
type inCommentFilter struct {
	And       *[]inCommentFilter
	Body      *inStringComparator
	CreatedAt *inDateComparator
	Id        *inIDComparator
	Issue     *inNullableIssueFilter
	Or        *[]inCommentFilter
	Parent    *inNullableCommentFilter
	UpdatedAt *inDateComparator
	User      *inUserFilter
}

// inCommentUpdateInput is Linear's CommentUpdateInput.
type inCommentUpdateInput struct {
	Body *string
}

// inContentComparator is Linear's ContentComparator.
type inContentComparator struct {
	Contains    *string
	NotContains *string
}

// inCreatedAtSort is Linear's CreatedAtSort.
type inCreatedAtSort struct {
	Nulls *string
	Order *string
}

// inCycleFilter is Linear's CycleFilter.
type inCycleFilter struct {
	And      *[]inCycleFilter
	EndsAt   *inDateComparator
	Id       *inIDComparator
	IsActive *inBooleanComparator
	Name     *inStringComparator
	Number   *inNumberComparator
	Or       *[]inCycleFilter
	StartsAt *inDateComparator
	Team     *inTeamFilter
}

// inDateComparator is Linear's DateComparator.
type inDateComparator struct {
	Eq  *gqlDateOrDuration
	Gt  *gqlDateOrDuration
	Gte *gqlDateOrDuration
	In  *[]gqlDateOrDuration
	Lt  *gqlDateOrDuration
	Lte *gqlDateOrDuration
	Neq *gqlDateOrDuration
	Nin *[]gqlDateOrDuration
}

// inEstimateComparator is Linear's EstimateComparator.
type inEstimateComparator struct {
	And  *[]inNullableNumberComparator
	Eq   *float64
	Gt   *float64
	Gte  *float64
	In   *[]float64
	Lt   *float64
	Lte  *float64
	Neq  *float64
	Nin  *[]float64
	Null *bool
	Or   *[]inNullableNumberComparator
}

// inEstimateSort is Linear's EstimateSort.
type inEstimateSort struct {
	Nulls *string
	Order *string
}

// inIDComparator is Linear's IDComparator.
type inIDComparator struct {
	Eq  *graphql.ID
	In  *[]graphql.ID
	Neq *graphql.ID
	Nin *[]graphql.ID
}

// inIssueCreateInput is Linear's IssueCreateInput.
type inIssueCreateInput struct {
	AssigneeId        *string
	CreateAsUser      *string
	CreatedAt         *gqlTime
	CycleId           *string
	DelegateId        *string
	Description       *string
	DisplayIconUrl    *string
	DueDate           *gqlDate
	Estimate          *int32
	Id                *string
	LabelIds          *[]string
	ParentId          *string
	Priority          *int32
	ProjectId         *string
	SortOrder         *float64
	StateId           *string
	SubIssueSortOrder *float64
	TeamId            string
	Title             *string
}

// inIssueFilter is Linear's IssueFilter.
type inIssueFilter struct {
	And                   *[]inIssueFilter
	ArchivedAt            *inNullableDateComparator
	Assignee              *inNullableUserFilter
	CanceledAt            *inNullableDateComparator
	CompletedAt           *inNullableDateComparator
	CreatedAt             *inDateComparator
	Creator               *inNullableUserFilter
	Cycle                 *inNullableCycleFilter
	Delegate              *inNullableUserFilter
	Description           *inNullableStringComparator
	DueDate               *inNullableTimelessDateComparator
	Estimate              *inEstimateComparator
	HasBlockedByRelations *inRelationExistsComparator
	HasBlockingRelations  *inRelationExistsComparator
	Id                    *inIssueIDComparator
	Labels                *inIssueLabelCollectionFilter
	Number                *inNumberComparator
	Or                    *[]inIssueFilter
	Parent                *inNullableIssueFilter
	Priority              *inNullableNumberComparator
	Project               *inNullableProjectFilter
	SearchableContent     *inContentComparator
	StartedAt             *inNullableDateComparator
	State                 *inWorkflowStateFilter
	Team                  *inTeamFilter
	Title                 *inStringComparator
	UpdatedAt             *inDateComparator
}

// inIssueIDComparator is Linear's IssueIDComparator.
type inIssueIDComparator struct {
	Eq  *graphql.ID
	In  *[]graphql.ID
	Neq *graphql.ID
	Nin *[]graphql.ID
}

// inIssueLabelCollectionFilter is Linear's IssueLabelCollectionFilter.
type inIssueLabelCollectionFilter struct {
	And     *[]inIssueLabelCollectionFilter
	Every   *inIssueLabelFilter
	Id      *inIDComparator
	IsGroup *inBooleanComparator
	Length  *inNumberComparator
	Name    *inStringComparator
	Or      *[]inIssueLabelCollectionFilter
	Some    *inIssueLabelFilter
	Team    *inNullableTeamFilter
}

// inIssueLabelCreateInput is Linear's IssueLabelCreateInput.
type inIssueLabelCreateInput struct {
	Color       *string
	Description *string
	Id          *string
	IsGroup     *bool
	Name        string
	ParentId    *string
	TeamId      *string
}

// inIssueLabelFilter is Linear's IssueLabelFilter.
type inIssueLabelFilter struct {
	And     *[]inIssueLabelFilter
	Id      *inIDComparator
	IsGroup *inBooleanComparator
	Name    *inStringComparator
	Or      *[]inIssueLabelFilter
	Parent  *inIssueLabelFilter
	Team    *inNullableTeamFilter
}

// inIssueRelationCreateInput is Linear's IssueRelationCreateInput.
type inIssueRelationCreateInput struct {
	Id             *string
	IssueId        string
	RelatedIssueId string
	Type           string
}

// inIssueSortInput is Linear's IssueSortInput.
type inIssueSortInput struct {
	CreatedAt *inCreatedAtSort
	Estimate  *inEstimateSort
	Priority  *inPrioritySort
	Title     *inTitleSort
	UpdatedAt *inUpdatedAtSort
}

// inIssueUpdateInput is Linear's IssueUpdateInput.
type inIssueUpdateInput struct {
	AddedLabelIds     *[]string
	AssigneeId        *string
	CycleId           *string
	DelegateId        *string
	Description       *string
	DueDate           *gqlDate
	Estimate          *int32
	LabelIds          *[]string
	ParentId          *string
	Priority          *int32
	ProjectId         *string
	RemovedLabelIds   *[]string
	SortOrder         *float64
	StateId           *string
	SubIssueSortOrder *float64
	TeamId            *string
	Title             *string
	Trashed           *bool
}

// inNullableCommentFilter is Linear's NullableCommentFilter.
type inNullableCommentFilter struct {
	And  *[]inNullableCommentFilter
	Body *inStringComparator
	Id   *inIDComparator
	Null *bool
	Or   *[]inNullableCommentFilter
}

// inNullableCycleFilter is Linear's NullableCycleFilter.
type inNullableCycleFilter struct {
	And      *[]inNullableCycleFilter
	Id       *inIDComparator
	IsActive *inBooleanComparator
	Name     *inStringComparator
	Null     *bool
	Number   *inNumberComparator
	Or       *[]inNullableCycleFilter
	Team     *inTeamFilter
}

// inNullableDateComparator is Linear's NullableDateComparator.
type inNullableDateComparator struct {
	Eq   *gqlDateOrDuration
	Gt   *gqlDateOrDuration
	Gte  *gqlDateOrDuration
	In   *[]gqlDateOrDuration
	Lt   *gqlDateOrDuration
	Lte  *gqlDateOrDuration
	Neq  *gqlDateOrDuration
	Nin  *[]gqlDateOrDuration
	Null *bool
}

// inNullableIssueFilter is Linear's NullableIssueFilter.
type inNullableIssueFilter struct {
	And    *[]inNullableIssueFilter
	Id     *inIssueIDComparator
	Null   *bool
	Number *inNumberComparator
	Or     *[]inNullableIssueFilter
	Title  *inStringComparator
}

// inNullableNumberComparator is Linear's NullableNumberComparator.
type inNullableNumberComparator struct {
	Eq   *float64
	Gt   *float64
	Gte  *float64
	In   *[]float64
	Lt   *float64
	Lte  *float64
	Neq  *float64
	Nin  *[]float64
	Null *bool
}

// inNullableProjectFilter is Linear's NullableProjectFilter.
type inNullableProjectFilter struct {
	And   *[]inNullableProjectFilter
	Id    *inIDComparator
	Name  *inStringComparator
	Null  *bool
	Or    *[]inNullableProjectFilter
	State *inStringComparator
}

// inNullableStringComparator is Linear's NullableStringComparator.
type inNullableStringComparator struct {
	Contains                    *string
	ContainsIgnoreCase          *string
	ContainsIgnoreCaseAndAccent *string
	EndsWith                    *string
	Eq                          *string
	EqIgnoreCase                *string
	In                          *[]string
	Neq                         *string
	NeqIgnoreCase               *string
	Nin                         *[]string
	NotContains                 *string
	NotContainsIgnoreCase       *string
	NotEndsWith                 *string
	NotStartsWith               *string
	Null                        *bool
	StartsWith                  *string
	StartsWithIgnoreCase        *string
}

// inNullableTeamFilter is Linear's NullableTeamFilter.
type inNullableTeamFilter struct {
	And  *[]inNullableTeamFilter
	Id   *inIDComparator
	Key  *inStringComparator
	Name *inStringComparator
	Null *bool
	Or   *[]inNullableTeamFilter
}

// inNullableTimelessDateComparator is Linear's NullableTimelessDateComparator.
type inNullableTimelessDateComparator struct {
	Eq   *gqlDateOrDuration
	Gt   *gqlDateOrDuration
	Gte  *gqlDateOrDuration
	In   *[]gqlDateOrDuration
	Lt   *gqlDateOrDuration
	Lte  *gqlDateOrDuration
	Neq  *gqlDateOrDuration
	Nin  *[]gqlDateOrDuration
	Null *bool
}

// inNullableUserFilter is Linear's NullableUserFilter.
type inNullableUserFilter struct {
	Active      *inBooleanComparator
	Admin       *inBooleanComparator
	And         *[]inNullableUserFilter
	App         *inBooleanComparator
	DisplayName *inStringComparator
	Email       *inStringComparator
	Id          *inIDComparator
	IsMe        *inBooleanComparator
	Name        *inStringComparator
	Null        *bool
	Or          *[]inNullableUserFilter
}

// inNumberComparator is Linear's NumberComparator.
type inNumberComparator struct {
	Eq  *float64
	Gt  *float64
	Gte *float64
	In  *[]float64
	Lt  *float64
	Lte *float64
	Neq *float64
	Nin *[]float64
}

// inPrioritySort is Linear's PrioritySort.
type inPrioritySort struct {
	NoPriorityFirst *bool
	Nulls           *string
	Order           *string
}

// inProjectCreatedAtSort is Linear's ProjectCreatedAtSort.
type inProjectCreatedAtSort struct {
	Nulls *string
	Order *string
}

// inProjectFilter is Linear's ProjectFilter.
type inProjectFilter struct {
	And       *[]inProjectFilter
	CreatedAt *inDateComparator
	Id        *inIDComparator
	Name      *inStringComparator
	Or        *[]inProjectFilter
	State     *inStringComparator
	UpdatedAt *inDateComparator
}

// inProjectNameSort is Linear's ProjectNameSort.
type inProjectNameSort struct {
	Nulls *string
	Order *string
}

// inProjectSortInput is Linear's ProjectSortInput.
type inProjectSortInput struct {
	CreatedAt *inProjectCreatedAtSort
	Name      *inProjectNameSort
	UpdatedAt *inProjectUpdatedAtSort
}

// inProjectUpdatedAtSort is Linear's ProjectUpdatedAtSort.
type inProjectUpdatedAtSort struct {
	Nulls *string
	Order *string
}

// inRelationExistsComparator is Linear's RelationExistsComparator.
type inRelationExistsComparator struct {
	Eq  *bool
	Neq *bool
}

// inStringComparator is Linear's StringComparator.
type inStringComparator struct {
	Contains                    *string
	ContainsIgnoreCase          *string
	ContainsIgnoreCaseAndAccent *string
	EndsWith                    *string
	Eq                          *string
	EqIgnoreCase                *string
	In                          *[]string
	Neq                         *string
	NeqIgnoreCase               *string
	Nin                         *[]string
	NotContains                 *string
	NotContainsIgnoreCase       *string
	NotEndsWith                 *string
	NotStartsWith               *string
	StartsWith                  *string
	StartsWithIgnoreCase        *string
}

// inTeamFilter is Linear's TeamFilter.
type inTeamFilter struct {
	And         *[]inTeamFilter
	Description *inNullableStringComparator
	Id          *inIDComparator
	Key         *inStringComparator
	Name        *inStringComparator
	Or          *[]inTeamFilter
	Private     *inBooleanComparator
}

// inTitleSort is Linear's TitleSort.
type inTitleSort struct {
	Nulls *string
	Order *string
}

// inUpdatedAtSort is Linear's UpdatedAtSort.
type inUpdatedAtSort struct {
	Nulls *string
	Order *string
}

// inUserDisplayNameSort is Linear's UserDisplayNameSort.
type inUserDisplayNameSort struct {
	Nulls *string
	Order *string
}

// inUserFilter is Linear's UserFilter.
type inUserFilter struct {
	Active      *inBooleanComparator
	Admin       *inBooleanComparator
	And         *[]inUserFilter
	App         *inBooleanComparator
	DisplayName *inStringComparator
	Email       *inStringComparator
	Id          *inIDComparator
	IsMe        *inBooleanComparator
	Name        *inStringComparator
	Or          *[]inUserFilter
}

// inUserNameSort is Linear's UserNameSort.
type inUserNameSort struct {
	Nulls *string
	Order *string
}

// inUserSortInput is Linear's UserSortInput.
type inUserSortInput struct {
	DisplayName *inUserDisplayNameSort
	Name        *inUserNameSort
}

// inWorkflowStateFilter is Linear's WorkflowStateFilter.
type inWorkflowStateFilter struct {
	And      *[]inWorkflowStateFilter
	Id       *inIDComparator
	Name     *inStringComparator
	Or       *[]inWorkflowStateFilter
	Position *inNumberComparator
	Team     *inTeamFilter
	Type     *inStringComparator
}

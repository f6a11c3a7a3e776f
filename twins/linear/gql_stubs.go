// The fields of Linear's schema (gql_schema.graphql) that the twin serves
// without modelling them: each reads as its zero value (null, false, 0, an
// empty list). Derived from Linear's SDL field by field; parsing the schema
// checks every one against it.

package linear

import graphql "github.com/graph-gophers/graphql-go"

var _ graphql.ID

// genActorBot holds the ActorBot fields that read as their zero value.
type genActorBot struct {
	GAvatarUrl       *string     `graphql:"avatarUrl"`
	GSubType         *string     `graphql:"subType"`
	GId              *graphql.ID `graphql:"id"`
	GName            *string     `graphql:"name"`
	GUserDisplayName *string     `graphql:"userDisplayName"`
	GType            string      `graphql:"type"`
}

// genAgentSession holds the AgentSession fields that read as their zero value.
type genAgentSession struct {
	GId graphql.ID `graphql:"id"`
}

// genAiPromptRules holds the AiPromptRules fields that read as their zero value.
type genAiPromptRules struct {
	GUpdatedAt  gqlTime    `graphql:"updatedAt"`
	GArchivedAt *gqlTime   `graphql:"archivedAt"`
	GCreatedAt  gqlTime    `graphql:"createdAt"`
	GId         graphql.ID `graphql:"id"`
	GUpdatedBy  *userR     `graphql:"updatedBy"`
}

// genArchiveResponse holds the ArchiveResponse fields that read as their zero value.
type genArchiveResponse struct {
	GArchive              string   `graphql:"archive"`
	GTotalCount           float64  `graphql:"totalCount"`
	GDatabaseVersion      float64  `graphql:"databaseVersion"`
	GIncludesDependencies []string `graphql:"includesDependencies"`
}

// genComment holds the Comment fields that read as their zero value.
type genComment struct {
	GId                 graphql.ID                `graphql:"id"`
	GAgentSession       *genAgentSession          `graphql:"agentSession"`
	GUrl                string                    `graphql:"url"`
	GReactionData       gqlJSON                   `graphql:"reactionData"`
	GReactions          []*genReaction            `graphql:"reactions"`
	GResolvingCommentId *string                   `graphql:"resolvingCommentId"`
	GDocumentContentId  *string                   `graphql:"documentContentId"`
	GInitiativeId       *string                   `graphql:"initiativeId"`
	GInitiativeUpdateId *string                   `graphql:"initiativeUpdateId"`
	GIssueId            *string                   `graphql:"issueId"`
	GParentId           *string                   `graphql:"parentId"`
	GProjectId          *string                   `graphql:"projectId"`
	GProjectUpdateId    *string                   `graphql:"projectUpdateId"`
	GBotActor           *genActorBot              `graphql:"botActor"`
	GBody               string                    `graphql:"body"`
	GDocumentContent    *genDocumentContent       `graphql:"documentContent"`
	GSyncedWith         *[]*genExternalEntityInfo `graphql:"syncedWith"`
	GExternalThread     *genSyncedExternalThread  `graphql:"externalThread"`
	GExternalUser       *genExternalUser          `graphql:"externalUser"`
	GInitiative         *genInitiative            `graphql:"initiative"`
	GInitiativeUpdate   *genInitiativeUpdate      `graphql:"initiativeUpdate"`
	GUpdatedAt          gqlTime                   `graphql:"updatedAt"`
	GProjectUpdate      *genProjectUpdate         `graphql:"projectUpdate"`
	GQuotedText         *string                   `graphql:"quotedText"`
	GArchivedAt         *gqlTime                  `graphql:"archivedAt"`
	GCreatedAt          gqlTime                   `graphql:"createdAt"`
	GEditedAt           *gqlTime                  `graphql:"editedAt"`
	GResolvedAt         *gqlTime                  `graphql:"resolvedAt"`
}

// genCycle holds the Cycle fields that read as their zero value.
type genCycle struct {
	GId                         graphql.ID `graphql:"id"`
	GNumber                     float64    `graphql:"number"`
	GCompletedAt                *gqlTime   `graphql:"completedAt"`
	GName                       *string    `graphql:"name"`
	GDescription                *string    `graphql:"description"`
	GEndsAt                     gqlTime    `graphql:"endsAt"`
	GUpdatedAt                  gqlTime    `graphql:"updatedAt"`
	GCompletedScopeHistory      []float64  `graphql:"completedScopeHistory"`
	GCompletedIssueCountHistory []float64  `graphql:"completedIssueCountHistory"`
	GInProgressScopeHistory     []float64  `graphql:"inProgressScopeHistory"`
	GProgress                   float64    `graphql:"progress"`
	GStartsAt                   gqlTime    `graphql:"startsAt"`
	GAutoArchivedAt             *gqlTime   `graphql:"autoArchivedAt"`
	GArchivedAt                 *gqlTime   `graphql:"archivedAt"`
	GCreatedAt                  gqlTime    `graphql:"createdAt"`
	GScopeHistory               []float64  `graphql:"scopeHistory"`
	GIssueCountHistory          []float64  `graphql:"issueCountHistory"`
	GIsFuture                   bool       `graphql:"isFuture"`
	GIsActive                   bool       `graphql:"isActive"`
	GIsPast                     bool       `graphql:"isPast"`
	GIsPrevious                 bool       `graphql:"isPrevious"`
	GIsNext                     bool       `graphql:"isNext"`
}

// genDocument holds the Document fields that read as their zero value.
type genDocument struct {
	GId graphql.ID `graphql:"id"`
}

// genDocumentContent holds the DocumentContent fields that read as their zero value.
type genDocumentContent struct {
	GAiPromptRules    *genAiPromptRules    `graphql:"aiPromptRules"`
	GContent          *string              `graphql:"content"`
	GContentState     *string              `graphql:"contentState"`
	GDocument         *genDocument         `graphql:"document"`
	GInitiative       *genInitiative       `graphql:"initiative"`
	GIssue            *issueR              `graphql:"issue"`
	GUpdatedAt        gqlTime              `graphql:"updatedAt"`
	GProjectMilestone *genProjectMilestone `graphql:"projectMilestone"`
	GProject          *projectR            `graphql:"project"`
	GRestoredAt       *gqlTime             `graphql:"restoredAt"`
	GArchivedAt       *gqlTime             `graphql:"archivedAt"`
	GCreatedAt        gqlTime              `graphql:"createdAt"`
	GId               graphql.ID           `graphql:"id"`
	GWelcomeMessage   *genWelcomeMessage   `graphql:"welcomeMessage"`
}

// genExternalEntityInfo holds the ExternalEntityInfo fields that read as their zero value.
type genExternalEntityInfo struct {
	GMetadata *genExternalEntityInfoMetadata `graphql:"metadata"`
	GId       string                         `graphql:"id"`
}

func (genExternalEntityInfo) Service() string { return "github" }

// genExternalEntityInfoGithubMetadata holds the ExternalEntityInfoGithubMetadata fields that read as their zero value.
type genExternalEntityInfoGithubMetadata struct {
	GNumber *float64 `graphql:"number"`
	GOwner  *string  `graphql:"owner"`
	GRepo   *string  `graphql:"repo"`
}

// genExternalEntityInfoJiraMetadata holds the ExternalEntityInfoJiraMetadata fields that read as their zero value.
type genExternalEntityInfoJiraMetadata struct {
	GIssueTypeId *string `graphql:"issueTypeId"`
	GProjectId   *string `graphql:"projectId"`
	GIssueKey    *string `graphql:"issueKey"`
}

// genExternalEntitySlackMetadata holds the ExternalEntitySlackMetadata fields that read as their zero value.
type genExternalEntitySlackMetadata struct {
	GMessageUrl  *string `graphql:"messageUrl"`
	GChannelId   *string `graphql:"channelId"`
	GChannelName *string `graphql:"channelName"`
	GIsFromSlack bool    `graphql:"isFromSlack"`
}

// genExternalUser holds the ExternalUser fields that read as their zero value.
type genExternalUser struct {
	GId graphql.ID `graphql:"id"`
}

// genFavorite holds the Favorite fields that read as their zero value.
type genFavorite struct {
	GId graphql.ID `graphql:"id"`
}

// genInitiative holds the Initiative fields that read as their zero value.
type genInitiative struct {
	GId graphql.ID `graphql:"id"`
}

// genInitiativeUpdate holds the InitiativeUpdate fields that read as their zero value.
type genInitiativeUpdate struct {
	GId graphql.ID `graphql:"id"`
}

// genIntegration holds the Integration fields that read as their zero value.
type genIntegration struct {
	GId graphql.ID `graphql:"id"`
}

// genIntegrationsSettings holds the IntegrationsSettings fields that read as their zero value.
type genIntegrationsSettings struct {
	GId graphql.ID `graphql:"id"`
}

// genIssue holds the Issue fields that read as their zero value.
type genIssue struct {
	GId                        graphql.ID                `graphql:"id"`
	GTrashed                   *bool                     `graphql:"trashed"`
	GReactionData              gqlJSON                   `graphql:"reactionData"`
	GLabelIds                  []string                  `graphql:"labelIds"`
	GIntegrationSourceType     *string                   `graphql:"integrationSourceType"`
	GUrl                       string                    `graphql:"url"`
	GIdentifier                string                    `graphql:"identifier"`
	GPriorityLabel             string                    `graphql:"priorityLabel"`
	GPreviousIdentifiers       []string                  `graphql:"previousIdentifiers"`
	GReactions                 []*genReaction            `graphql:"reactions"`
	GCustomerTicketCount       int32                     `graphql:"customerTicketCount"`
	GBranchName                string                    `graphql:"branchName"`
	GBotActor                  *genActorBot              `graphql:"botActor"`
	GDueDate                   *gqlDate                  `graphql:"dueDate"`
	GEstimate                  *float64                  `graphql:"estimate"`
	GSyncedWith                *[]*genExternalEntityInfo `graphql:"syncedWith"`
	GExternalUserCreator       *genExternalUser          `graphql:"externalUserCreator"`
	GAsksExternalUserRequester *genExternalUser          `graphql:"asksExternalUserRequester"`
	GDescription               *string                   `graphql:"description"`
	GTitle                     string                    `graphql:"title"`
	GNumber                    float64                   `graphql:"number"`
	GLastAppliedTemplate       *genTemplate              `graphql:"lastAppliedTemplate"`
	GUpdatedAt                 gqlTime                   `graphql:"updatedAt"`
	GBoardOrder                float64                   `graphql:"boardOrder"`
	GSortOrder                 float64                   `graphql:"sortOrder"`
	GPrioritySortOrder         float64                   `graphql:"prioritySortOrder"`
	GSubIssueSortOrder         *float64                  `graphql:"subIssueSortOrder"`
	GPriority                  float64                   `graphql:"priority"`
	GProjectMilestone          *genProjectMilestone      `graphql:"projectMilestone"`
	GRecurringIssueTemplate    *genTemplate              `graphql:"recurringIssueTemplate"`
	GArchivedAt                *gqlTime                  `graphql:"archivedAt"`
	GCreatedAt                 gqlTime                   `graphql:"createdAt"`
	GStartedTriageAt           *gqlTime                  `graphql:"startedTriageAt"`
	GTriagedAt                 *gqlTime                  `graphql:"triagedAt"`
	GAddedToCycleAt            *gqlTime                  `graphql:"addedToCycleAt"`
	GAddedToProjectAt          *gqlTime                  `graphql:"addedToProjectAt"`
	GAddedToTeamAt             *gqlTime                  `graphql:"addedToTeamAt"`
	GAutoArchivedAt            *gqlTime                  `graphql:"autoArchivedAt"`
	GAutoClosedAt              *gqlTime                  `graphql:"autoClosedAt"`
	GCanceledAt                *gqlTime                  `graphql:"canceledAt"`
	GCompletedAt               *gqlTime                  `graphql:"completedAt"`
	GStartedAt                 *gqlTime                  `graphql:"startedAt"`
	GSlaStartedAt              *gqlTime                  `graphql:"slaStartedAt"`
	GSlaBreachesAt             *gqlTime                  `graphql:"slaBreachesAt"`
	GSlaHighRiskAt             *gqlTime                  `graphql:"slaHighRiskAt"`
	GSlaMediumRiskAt           *gqlTime                  `graphql:"slaMediumRiskAt"`
	GSnoozedUntilAt            *gqlTime                  `graphql:"snoozedUntilAt"`
	GSlaType                   *string                   `graphql:"slaType"`
	GFavorite                  *genFavorite              `graphql:"favorite"`
	GInheritsSharedAccess      bool                      `graphql:"inheritsSharedAccess"`
}

func (genIssue) SharedAccess() *genIssueSharedAccess { return &genIssueSharedAccess{} }

// genIssueLabel holds the IssueLabel fields that read as their zero value.
type genIssueLabel struct {
	GLastAppliedAt *gqlTime   `graphql:"lastAppliedAt"`
	GColor         string     `graphql:"color"`
	GDescription   *string    `graphql:"description"`
	GName          string     `graphql:"name"`
	GUpdatedAt     gqlTime    `graphql:"updatedAt"`
	GId            graphql.ID `graphql:"id"`
	GGroupType     *string    `graphql:"groupType"`
	GArchivedAt    *gqlTime   `graphql:"archivedAt"`
	GCreatedAt     gqlTime    `graphql:"createdAt"`
	GIsGroup       bool       `graphql:"isGroup"`
}

// genIssueRelation holds the IssueRelation fields that read as their zero value.
type genIssueRelation struct {
	GUpdatedAt  gqlTime    `graphql:"updatedAt"`
	GArchivedAt *gqlTime   `graphql:"archivedAt"`
	GCreatedAt  gqlTime    `graphql:"createdAt"`
	GType       string     `graphql:"type"`
	GId         graphql.ID `graphql:"id"`
}

// genIssueSearchResult holds the IssueSearchResult fields that read as their zero value.
type genIssueSearchResult struct {
	GTrashed                   *bool                     `graphql:"trashed"`
	GReactionData              gqlJSON                   `graphql:"reactionData"`
	GLabelIds                  []string                  `graphql:"labelIds"`
	GIntegrationSourceType     *string                   `graphql:"integrationSourceType"`
	GUrl                       string                    `graphql:"url"`
	GIdentifier                string                    `graphql:"identifier"`
	GPriorityLabel             string                    `graphql:"priorityLabel"`
	GMetadata                  gqlJSON                   `graphql:"metadata"`
	GPreviousIdentifiers       []string                  `graphql:"previousIdentifiers"`
	GReactions                 []*genReaction            `graphql:"reactions"`
	GCustomerTicketCount       int32                     `graphql:"customerTicketCount"`
	GBranchName                string                    `graphql:"branchName"`
	GBotActor                  *genActorBot              `graphql:"botActor"`
	GDueDate                   *gqlDate                  `graphql:"dueDate"`
	GEstimate                  *float64                  `graphql:"estimate"`
	GSyncedWith                *[]*genExternalEntityInfo `graphql:"syncedWith"`
	GExternalUserCreator       *genExternalUser          `graphql:"externalUserCreator"`
	GAsksExternalUserRequester *genExternalUser          `graphql:"asksExternalUserRequester"`
	GDescription               *string                   `graphql:"description"`
	GTitle                     string                    `graphql:"title"`
	GNumber                    float64                   `graphql:"number"`
	GLastAppliedTemplate       *genTemplate              `graphql:"lastAppliedTemplate"`
	GUpdatedAt                 gqlTime                   `graphql:"updatedAt"`
	GBoardOrder                float64                   `graphql:"boardOrder"`
	GSortOrder                 float64                   `graphql:"sortOrder"`
	GPrioritySortOrder         float64                   `graphql:"prioritySortOrder"`
	GSubIssueSortOrder         *float64                  `graphql:"subIssueSortOrder"`
	GPriority                  float64                   `graphql:"priority"`
	GProjectMilestone          *genProjectMilestone      `graphql:"projectMilestone"`
	GRecurringIssueTemplate    *genTemplate              `graphql:"recurringIssueTemplate"`
	GArchivedAt                *gqlTime                  `graphql:"archivedAt"`
	GCreatedAt                 gqlTime                   `graphql:"createdAt"`
	GStartedTriageAt           *gqlTime                  `graphql:"startedTriageAt"`
	GTriagedAt                 *gqlTime                  `graphql:"triagedAt"`
	GAddedToCycleAt            *gqlTime                  `graphql:"addedToCycleAt"`
	GAddedToProjectAt          *gqlTime                  `graphql:"addedToProjectAt"`
	GAddedToTeamAt             *gqlTime                  `graphql:"addedToTeamAt"`
	GAutoArchivedAt            *gqlTime                  `graphql:"autoArchivedAt"`
	GAutoClosedAt              *gqlTime                  `graphql:"autoClosedAt"`
	GCanceledAt                *gqlTime                  `graphql:"canceledAt"`
	GCompletedAt               *gqlTime                  `graphql:"completedAt"`
	GStartedAt                 *gqlTime                  `graphql:"startedAt"`
	GSlaStartedAt              *gqlTime                  `graphql:"slaStartedAt"`
	GSlaBreachesAt             *gqlTime                  `graphql:"slaBreachesAt"`
	GSlaHighRiskAt             *gqlTime                  `graphql:"slaHighRiskAt"`
	GSlaMediumRiskAt           *gqlTime                  `graphql:"slaMediumRiskAt"`
	GSnoozedUntilAt            *gqlTime                  `graphql:"snoozedUntilAt"`
	GSlaType                   *string                   `graphql:"slaType"`
	GId                        graphql.ID                `graphql:"id"`
	GFavorite                  *genFavorite              `graphql:"favorite"`
	GInheritsSharedAccess      bool                      `graphql:"inheritsSharedAccess"`
}

func (genIssueSearchResult) SharedAccess() *genIssueSharedAccess { return &genIssueSharedAccess{} }

// genIssueSharedAccess holds the IssueSharedAccess fields that read as their zero value.
type genIssueSharedAccess struct {
	GDisallowedIssueFields     []string `graphql:"disallowedIssueFields"`
	GSharedWithCount           int32    `graphql:"sharedWithCount"`
	GSharedWithUsers           []*userR `graphql:"sharedWithUsers"`
	GViewerHasOnlySharedAccess bool     `graphql:"viewerHasOnlySharedAccess"`
	GIsShared                  bool     `graphql:"isShared"`
}

// genOrganization holds the Organization fields that read as their zero value.
type genOrganization struct {
	GAllowedAuthServices                      []string             `graphql:"allowedAuthServices"`
	GAllowedFileUploadContentTypes            *[]string            `graphql:"allowedFileUploadContentTypes"`
	GCreatedIssueCount                        int32                `graphql:"createdIssueCount"`
	GAuthSettings                             gqlJSON              `graphql:"authSettings"`
	GCustomersConfiguration                   gqlJSON              `graphql:"customersConfiguration"`
	GDefaultFeedSummarySchedule               *string              `graphql:"defaultFeedSummarySchedule"`
	GPullRequestIssueMode                     string               `graphql:"pullRequestIssueMode"`
	GPreviousUrlKeys                          []string             `graphql:"previousUrlKeys"`
	GPeriodUploadVolume                       float64              `graphql:"periodUploadVolume"`
	GSecuritySettings                         gqlJSON              `graphql:"securitySettings"`
	GSlackProjectChannelIntegration           *genIntegration      `graphql:"slackProjectChannelIntegration"`
	GLogoUrl                                  *string              `graphql:"logoUrl"`
	GDefaultHomeView                          *string              `graphql:"defaultHomeView"`
	GInitiativeUpdateReminderFrequencyInWeeks *float64             `graphql:"initiativeUpdateReminderFrequencyInWeeks"`
	GProjectUpdateReminderFrequencyInWeeks    *float64             `graphql:"projectUpdateReminderFrequencyInWeeks"`
	GInitiativeUpdateRemindersHour            float64              `graphql:"initiativeUpdateRemindersHour"`
	GProjectUpdateRemindersHour               float64              `graphql:"projectUpdateRemindersHour"`
	GDefaultHomeViewTargetId                  *string              `graphql:"defaultHomeViewTargetId"`
	GUpdatedAt                                gqlTime              `graphql:"updatedAt"`
	GCustomerCount                            int32                `graphql:"customerCount"`
	GUserCount                                int32                `graphql:"userCount"`
	GSlackProjectChannelPrefix                string               `graphql:"slackProjectChannelPrefix"`
	GGitBranchFormat                          *string              `graphql:"gitBranchFormat"`
	GDeletionRequestedAt                      *gqlTime             `graphql:"deletionRequestedAt"`
	GTrialStartsAt                            *gqlTime             `graphql:"trialStartsAt"`
	GTrialEndsAt                              *gqlTime             `graphql:"trialEndsAt"`
	GArchivedAt                               *gqlTime             `graphql:"archivedAt"`
	GCreatedAt                                gqlTime              `graphql:"createdAt"`
	GId                                       graphql.ID           `graphql:"id"`
	GProjectStatuses                          []*genProjectStatus  `graphql:"projectStatuses"`
	GName                                     string               `graphql:"name"`
	GSubscription                             *genPaidSubscription `graphql:"subscription"`
	GUrlKey                                   string               `graphql:"urlKey"`
	GFiscalYearStartMonth                     float64              `graphql:"fiscalYearStartMonth"`
	GHipaaComplianceEnabled                   bool                 `graphql:"hipaaComplianceEnabled"`
	GSamlEnabled                              bool                 `graphql:"samlEnabled"`
	GScimEnabled                              bool                 `graphql:"scimEnabled"`
	GGitLinkbackDescriptionsEnabled           bool                 `graphql:"gitLinkbackDescriptionsEnabled"`
	GReleasesEnabled                          bool                 `graphql:"releasesEnabled"`
	GCustomersEnabled                         bool                 `graphql:"customersEnabled"`
	GGitLinkbackMessagesEnabled               bool                 `graphql:"gitLinkbackMessagesEnabled"`
	GGitPublicLinkbackMessagesEnabled         bool                 `graphql:"gitPublicLinkbackMessagesEnabled"`
	GFeedEnabled                              bool                 `graphql:"feedEnabled"`
	GSuggestedBranchNameEnabled               bool                 `graphql:"suggestedBranchNameEnabled"`
	GRoadmapEnabled                           bool                 `graphql:"roadmapEnabled"`
	GPullRequestTourEnabled                   bool                 `graphql:"pullRequestTourEnabled"`
	GAiDiscussionSummariesEnabled             bool                 `graphql:"aiDiscussionSummariesEnabled"`
	GAiThreadSummariesEnabled                 bool                 `graphql:"aiThreadSummariesEnabled"`
	GHideNonPrimaryOrganizations              bool                 `graphql:"hideNonPrimaryOrganizations"`
	GAllowMembersToInvite                     *bool                `graphql:"allowMembersToInvite"`
	GRestrictTeamCreationToAdmins             *bool                `graphql:"restrictTeamCreationToAdmins"`
	GRestrictLabelManagementToAdmins          *bool                `graphql:"restrictLabelManagementToAdmins"`
}

func (genOrganization) InitiativeUpdateRemindersDay() string    { return "Friday" }
func (genOrganization) ProjectUpdateRemindersDay() string       { return "Friday" }
func (genOrganization) ReleaseChannel() string                  { return "beta" }
func (genOrganization) ProjectUpdatesReminderFrequency() string { return "month" }
func (genOrganization) SlaDayCount() string                     { return "all" }

// genPaidSubscription holds the PaidSubscription fields that read as their zero value.
type genPaidSubscription struct {
	GCollectionMethod  string     `graphql:"collectionMethod"`
	GCancelAt          *gqlTime   `graphql:"cancelAt"`
	GCanceledAt        *gqlTime   `graphql:"canceledAt"`
	GNextBillingAt     *gqlTime   `graphql:"nextBillingAt"`
	GUpdatedAt         gqlTime    `graphql:"updatedAt"`
	GSeatsMaximum      *float64   `graphql:"seatsMaximum"`
	GSeatsMinimum      *float64   `graphql:"seatsMinimum"`
	GSeats             float64    `graphql:"seats"`
	GType              string     `graphql:"type"`
	GPendingChangeType *string    `graphql:"pendingChangeType"`
	GArchivedAt        *gqlTime   `graphql:"archivedAt"`
	GCreatedAt         gqlTime    `graphql:"createdAt"`
	GId                graphql.ID `graphql:"id"`
	GCreator           *userR     `graphql:"creator"`
}

// genProject holds the Project fields that read as their zero value.
type genProject struct {
	GId                                  graphql.ID                `graphql:"id"`
	GTrashed                             *bool                     `graphql:"trashed"`
	GUrl                                 string                    `graphql:"url"`
	GIntegrationsSettings                *genIntegrationsSettings  `graphql:"integrationsSettings"`
	GMicrosoftTeamsChannelId             *string                   `graphql:"microsoftTeamsChannelId"`
	GSlackChannelId                      *string                   `graphql:"slackChannelId"`
	GLabelIds                            []string                  `graphql:"labelIds"`
	GDocumentContent                     *genDocumentContent       `graphql:"documentContent"`
	GUpdateRemindersDay                  *string                   `graphql:"updateRemindersDay"`
	GTargetDate                          *gqlDate                  `graphql:"targetDate"`
	GStartDate                           *gqlDate                  `graphql:"startDate"`
	GSyncedWith                          *[]*genExternalEntityInfo `graphql:"syncedWith"`
	GUpdateReminderFrequency             *float64                  `graphql:"updateReminderFrequency"`
	GUpdateRemindersHour                 *float64                  `graphql:"updateRemindersHour"`
	GIcon                                *string                   `graphql:"icon"`
	GLastAppliedTemplate                 *genTemplate              `graphql:"lastAppliedTemplate"`
	GUpdatedAt                           gqlTime                   `graphql:"updatedAt"`
	GLastUpdate                          *genProjectUpdate         `graphql:"lastUpdate"`
	GUpdateReminderFrequencyInWeeks      *float64                  `graphql:"updateReminderFrequencyInWeeks"`
	GName                                string                    `graphql:"name"`
	GCompletedScopeHistory               []float64                 `graphql:"completedScopeHistory"`
	GCompletedIssueCountHistory          []float64                 `graphql:"completedIssueCountHistory"`
	GInProgressScopeHistory              []float64                 `graphql:"inProgressScopeHistory"`
	GResourceCount                       int32                     `graphql:"resourceCount"`
	GHealth                              *string                   `graphql:"health"`
	GProgress                            float64                   `graphql:"progress"`
	GScope                               float64                   `graphql:"scope"`
	GPriorityLabel                       string                    `graphql:"priorityLabel"`
	GPriority                            int32                     `graphql:"priority"`
	GColor                               string                    `graphql:"color"`
	GContent                             *string                   `graphql:"content"`
	GSlugId                              string                    `graphql:"slugId"`
	GTargetDateResolution                *string                   `graphql:"targetDateResolution"`
	GStartDateResolution                 *string                   `graphql:"startDateResolution"`
	GDescription                         string                    `graphql:"description"`
	GPrioritySortOrder                   float64                   `graphql:"prioritySortOrder"`
	GSortOrder                           float64                   `graphql:"sortOrder"`
	GArchivedAt                          *gqlTime                  `graphql:"archivedAt"`
	GCreatedAt                           gqlTime                   `graphql:"createdAt"`
	GHealthUpdatedAt                     *gqlTime                  `graphql:"healthUpdatedAt"`
	GAutoArchivedAt                      *gqlTime                  `graphql:"autoArchivedAt"`
	GCanceledAt                          *gqlTime                  `graphql:"canceledAt"`
	GCompletedAt                         *gqlTime                  `graphql:"completedAt"`
	GStartedAt                           *gqlTime                  `graphql:"startedAt"`
	GProjectUpdateRemindersPausedUntilAt *gqlTime                  `graphql:"projectUpdateRemindersPausedUntilAt"`
	GIssueCountHistory                   []float64                 `graphql:"issueCountHistory"`
	GScopeHistory                        []float64                 `graphql:"scopeHistory"`
	GFavorite                            *genFavorite              `graphql:"favorite"`
	GSlackIssueComments                  bool                      `graphql:"slackIssueComments"`
	GSlackNewIssue                       bool                      `graphql:"slackNewIssue"`
	GSlackIssueStatuses                  bool                      `graphql:"slackIssueStatuses"`
	GState                               string                    `graphql:"state"`
}

func (genProject) Status() *genProjectStatus   { return &genProjectStatus{} }
func (genProject) FrequencyResolution() string { return "daily" }

// genProjectMilestone holds the ProjectMilestone fields that read as their zero value.
type genProjectMilestone struct {
	GId graphql.ID `graphql:"id"`
}

// genProjectStatus holds the ProjectStatus fields that read as their zero value.
type genProjectStatus struct {
	GDescription *string    `graphql:"description"`
	GColor       string     `graphql:"color"`
	GUpdatedAt   gqlTime    `graphql:"updatedAt"`
	GName        string     `graphql:"name"`
	GPosition    float64    `graphql:"position"`
	GArchivedAt  *gqlTime   `graphql:"archivedAt"`
	GCreatedAt   gqlTime    `graphql:"createdAt"`
	GId          graphql.ID `graphql:"id"`
	GIndefinite  bool       `graphql:"indefinite"`
}

func (genProjectStatus) Type() string { return "backlog" }

// genProjectUpdate holds the ProjectUpdate fields that read as their zero value.
type genProjectUpdate struct {
	GId graphql.ID `graphql:"id"`
}

// genReaction holds the Reaction fields that read as their zero value.
type genReaction struct {
	GComment          *commentR            `graphql:"comment"`
	GExternalUser     *genExternalUser     `graphql:"externalUser"`
	GInitiativeUpdate *genInitiativeUpdate `graphql:"initiativeUpdate"`
	GIssue            *issueR              `graphql:"issue"`
	GUpdatedAt        gqlTime              `graphql:"updatedAt"`
	GEmoji            string               `graphql:"emoji"`
	GProjectUpdate    *genProjectUpdate    `graphql:"projectUpdate"`
	GArchivedAt       *gqlTime             `graphql:"archivedAt"`
	GCreatedAt        gqlTime              `graphql:"createdAt"`
	GId               graphql.ID           `graphql:"id"`
	GUser             *userR               `graphql:"user"`
}

// genSyncedExternalThread holds the SyncedExternalThread fields that read as their zero value.
type genSyncedExternalThread struct {
	GUrl                            *string     `graphql:"url"`
	GName                           *string     `graphql:"name"`
	GDisplayName                    *string     `graphql:"displayName"`
	GType                           string      `graphql:"type"`
	GSubType                        *string     `graphql:"subType"`
	GId                             *graphql.ID `graphql:"id"`
	GIsPersonalIntegrationRequired  bool        `graphql:"isPersonalIntegrationRequired"`
	GIsPersonalIntegrationConnected bool        `graphql:"isPersonalIntegrationConnected"`
	GIsConnected                    bool        `graphql:"isConnected"`
}

// genTeam holds the Team fields that read as their zero value.
type genTeam struct {
	GCycleIssueAutoAssignCompleted  bool                     `graphql:"cycleIssueAutoAssignCompleted"`
	GCycleLockToActive              bool                     `graphql:"cycleLockToActive"`
	GCycleIssueAutoAssignStarted    bool                     `graphql:"cycleIssueAutoAssignStarted"`
	GCycleCalenderUrl               string                   `graphql:"cycleCalenderUrl"`
	GUpcomingCycleCount             float64                  `graphql:"upcomingCycleCount"`
	GAutoArchivePeriod              float64                  `graphql:"autoArchivePeriod"`
	GAutoClosePeriod                *float64                 `graphql:"autoClosePeriod"`
	GSecuritySettings               gqlJSON                  `graphql:"securitySettings"`
	GIntegrationsSettings           *genIntegrationsSettings `graphql:"integrationsSettings"`
	GTriageResponsibility           *genTriageResponsibility `graphql:"triageResponsibility"`
	GScimGroupName                  *string                  `graphql:"scimGroupName"`
	GAutoCloseStateId               *string                  `graphql:"autoCloseStateId"`
	GCycleCooldownTime              float64                  `graphql:"cycleCooldownTime"`
	GCycleStartDay                  float64                  `graphql:"cycleStartDay"`
	GDefaultTemplateForMembers      *genTemplate             `graphql:"defaultTemplateForMembers"`
	GDefaultTemplateForNonMembers   *genTemplate             `graphql:"defaultTemplateForNonMembers"`
	GDefaultProjectTemplate         *genTemplate             `graphql:"defaultProjectTemplate"`
	GCycleDuration                  float64                  `graphql:"cycleDuration"`
	GIcon                           *string                  `graphql:"icon"`
	GDefaultTemplateForMembersId    *string                  `graphql:"defaultTemplateForMembersId"`
	GDefaultTemplateForNonMembersId *string                  `graphql:"defaultTemplateForNonMembersId"`
	GIssueEstimationType            string                   `graphql:"issueEstimationType"`
	GUpdatedAt                      gqlTime                  `graphql:"updatedAt"`
	GDisplayName                    string                   `graphql:"displayName"`
	GLedInitiativeCount             int32                    `graphql:"ledInitiativeCount"`
	GColor                          *string                  `graphql:"color"`
	GDescription                    *string                  `graphql:"description"`
	GName                           string                   `graphql:"name"`
	GId                             graphql.ID               `graphql:"id"`
	GKey                            string                   `graphql:"key"`
	GArchivedAt                     *gqlTime                 `graphql:"archivedAt"`
	GCreatedAt                      gqlTime                  `graphql:"createdAt"`
	GRetiredAt                      *gqlTime                 `graphql:"retiredAt"`
	GTimezone                       string                   `graphql:"timezone"`
	GIssueCount                     int32                    `graphql:"issueCount"`
	GViewerMembership               *genTeamMembership       `graphql:"viewerMembership"`
	GDefaultIssueEstimate           float64                  `graphql:"defaultIssueEstimate"`
	GSetIssueSortOrderOnStateChange string                   `graphql:"setIssueSortOrderOnStateChange"`
	GAllMembersCanJoin              *bool                    `graphql:"allMembersCanJoin"`
	GRequirePriorityToLeaveTriage   bool                     `graphql:"requirePriorityToLeaveTriage"`
	GAutoCloseChildIssues           *bool                    `graphql:"autoCloseChildIssues"`
	GAutoCloseParentIssues          *bool                    `graphql:"autoCloseParentIssues"`
	GInitiativesEnabled             bool                     `graphql:"initiativesEnabled"`
	GScimManaged                    bool                     `graphql:"scimManaged"`
	GPrivate                        bool                     `graphql:"private"`
	GInheritIssueEstimation         bool                     `graphql:"inheritIssueEstimation"`
	GInheritWorkflowStatuses        bool                     `graphql:"inheritWorkflowStatuses"`
	GCyclesEnabled                  bool                     `graphql:"cyclesEnabled"`
	GViewerCanJoin                  bool                     `graphql:"viewerCanJoin"`
	GViewerCanLeave                 bool                     `graphql:"viewerCanLeave"`
	GIssueEstimationExtended        bool                     `graphql:"issueEstimationExtended"`
	GIssueEstimationAllowZero       bool                     `graphql:"issueEstimationAllowZero"`
	GAiDiscussionSummariesEnabled   bool                     `graphql:"aiDiscussionSummariesEnabled"`
	GAiThreadSummariesEnabled       bool                     `graphql:"aiThreadSummariesEnabled"`
	GGroupIssueHistory              bool                     `graphql:"groupIssueHistory"`
	GSlackIssueComments             bool                     `graphql:"slackIssueComments"`
	GSlackNewIssue                  bool                     `graphql:"slackNewIssue"`
	GSlackIssueStatuses             bool                     `graphql:"slackIssueStatuses"`
	GTriageEnabled                  bool                     `graphql:"triageEnabled"`
	GInviteHash                     string                   `graphql:"inviteHash"`
	GIssueOrderingNoPriorityFirst   bool                     `graphql:"issueOrderingNoPriorityFirst"`
	GIssueSortOrderDefaultToBottom  bool                     `graphql:"issueSortOrderDefaultToBottom"`
}

func (genTeam) Visibility() string { return "private" }

// genTeamMembership holds the TeamMembership fields that read as their zero value.
type genTeamMembership struct {
	GId graphql.ID `graphql:"id"`
}

// genTemplate holds the Template fields that read as their zero value.
type genTemplate struct {
	GId graphql.ID `graphql:"id"`
}

// genTriageResponsibility holds the TriageResponsibility fields that read as their zero value.
type genTriageResponsibility struct {
	GId graphql.ID `graphql:"id"`
}

// genUser holds the User fields that read as their zero value.
type genUser struct {
	GDescription            *string    `graphql:"description"`
	GAvatarUrl              *string    `graphql:"avatarUrl"`
	GCreatedIssueCount      int32      `graphql:"createdIssueCount"`
	GAvatarBackgroundColor  string     `graphql:"avatarBackgroundColor"`
	GStatusUntilAt          *gqlTime   `graphql:"statusUntilAt"`
	GStatusEmoji            *string    `graphql:"statusEmoji"`
	GInitials               string     `graphql:"initials"`
	GUpdatedAt              gqlTime    `graphql:"updatedAt"`
	GLastSeen               *gqlTime   `graphql:"lastSeen"`
	GTimezone               *string    `graphql:"timezone"`
	GDisableReason          *string    `graphql:"disableReason"`
	GStatusLabel            *string    `graphql:"statusLabel"`
	GArchivedAt             *gqlTime   `graphql:"archivedAt"`
	GCreatedAt              gqlTime    `graphql:"createdAt"`
	GId                     graphql.ID `graphql:"id"`
	GGitHubUserId           *string    `graphql:"gitHubUserId"`
	GDisplayName            string     `graphql:"displayName"`
	GEmail                  string     `graphql:"email"`
	GName                   string     `graphql:"name"`
	GTitle                  *string    `graphql:"title"`
	GUrl                    string     `graphql:"url"`
	GActive                 bool       `graphql:"active"`
	GIsAssignable           bool       `graphql:"isAssignable"`
	GIsMentionable          bool       `graphql:"isMentionable"`
	GGuest                  bool       `graphql:"guest"`
	GAdmin                  bool       `graphql:"admin"`
	GOwner                  bool       `graphql:"owner"`
	GApp                    bool       `graphql:"app"`
	GIsMe                   bool       `graphql:"isMe"`
	GSupportsAgentSessions  bool       `graphql:"supportsAgentSessions"`
	GCanAccessAnyPublicTeam bool       `graphql:"canAccessAnyPublicTeam"`
	GCalendarHash           *string    `graphql:"calendarHash"`
	GInviteHash             string     `graphql:"inviteHash"`
}

// genWelcomeMessage holds the WelcomeMessage fields that read as their zero value.
type genWelcomeMessage struct {
	GUpdatedAt  gqlTime    `graphql:"updatedAt"`
	GArchivedAt *gqlTime   `graphql:"archivedAt"`
	GCreatedAt  gqlTime    `graphql:"createdAt"`
	GTitle      *string    `graphql:"title"`
	GId         graphql.ID `graphql:"id"`
	GUpdatedBy  *userR     `graphql:"updatedBy"`
	GEnabled    bool       `graphql:"enabled"`
}

// genWorkflowState holds the WorkflowState fields that read as their zero value.
type genWorkflowState struct {
	GId          graphql.ID `graphql:"id"`
	GDescription *string    `graphql:"description"`
	GUpdatedAt   gqlTime    `graphql:"updatedAt"`
	GPosition    float64    `graphql:"position"`
	GColor       string     `graphql:"color"`
	GName        string     `graphql:"name"`
	GArchivedAt  *gqlTime   `graphql:"archivedAt"`
	GCreatedAt   gqlTime    `graphql:"createdAt"`
	GType        string     `graphql:"type"`
}

// genExternalEntityInfoMetadata is the ExternalEntityInfoMetadata union; it never holds a member.
type genExternalEntityInfoMetadata struct{}

func (genExternalEntityInfoMetadata) ToExternalEntityInfoGithubMetadata() (*genExternalEntityInfoGithubMetadata, bool) {
	return nil, false
}
func (genExternalEntityInfoMetadata) ToExternalEntityInfoJiraMetadata() (*genExternalEntityInfoJiraMetadata, bool) {
	return nil, false
}
func (genExternalEntityInfoMetadata) ToExternalEntitySlackMetadata() (*genExternalEntitySlackMetadata, bool) {
	return nil, false
}

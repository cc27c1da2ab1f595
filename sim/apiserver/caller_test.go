package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
)

// TestCallerClassificationsFollowTheConfiguration checks the classifications API Priority and
// Fairness keeps in a client's Caller: one record per client name, a record sent under
// another client's name is not used for it, and a reconfiguration makes every kept
// classification stale.
func TestCallerClassificationsFollowTheConfiguration(t *testing.T) {
	_, srv := newTestServer(t, func(c *Config) {
		c.APF.Enabled = true
		c.APF.Users = testUsers
	})
	rogue := srv.Caller("rogue")
	require.Same(t, rogue, srv.Caller("rogue"), "one record per client name")
	require.NotSame(t, rogue, srv.Caller("other"))

	get := func(client string, caller *Caller) string {
		req := &Request{Client: client, Caller: caller, Verb: model.VerbGet, Kind: model.KindPod, Namespace: "default", Name: "p"}
		return srv.apf.classify(req).pl.name
	}
	assert.Equal(t, "global-default", get("rogue", rogue))
	assert.Equal(t, "exempt", get("admin", rogue), "a record under another name is not the client's")
	assert.Equal(t, "global-default", get("rogue", rogue), "the admin's classification was not kept as the rogue's")
	_, otherSrv := newTestServer(t, func(c *Config) {
		c.APF.Enabled = true
		c.APF.Users = testUsers
	})
	foreign := otherSrv.Caller("rogue")
	assert.Same(t, rogue, srv.callerOf(&Request{Client: "rogue", Caller: foreign}), "another server's record is not this server's")

	// A FlowSchema for the rogue user: the classification kept in its record is stale.
	fs := &model.FlowSchema{
		ObjectMeta: model.ObjectMeta{Name: "rogue-low"},
		Spec: model.FlowSchemaSpec{
			PriorityLevelConfiguration: model.PriorityLevelConfigurationReference{Name: "workload-low"},
			MatchingPrecedence:         500,
			Rules: []model.PolicyRulesWithSubjects{{
				Subjects: []model.Subject{{Kind: model.SubjectKindUser, User: &model.UserSubject{Name: "rogue"}}},
				ResourceRules: []model.ResourcePolicyRule{{
					Verbs: []string{model.VerbAll}, APIGroups: []string{model.APIGroupAll},
					Resources: []string{model.ResourceAll}, Namespaces: []string{model.NamespaceEvery},
				}},
			}},
		},
	}
	_, err := srv.Store().Create(fs)
	require.NoError(t, err)
	srv.SyncAPFConfig()
	assert.Equal(t, "workload-low", get("rogue", rogue))
	assert.Equal(t, "workload-low", get("rogue", nil), "found by name without a record")
}

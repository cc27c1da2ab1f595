package apiserver

import "github.com/reconsim/reconsim/model"

// Well-known user and group names ([apiserver@HEAD] pkg/authentication/user/user.go and
// pkg/authentication/serviceaccount/util.go).
const (
	UserKubeControllerManager = model.UserKubeControllerManager
	UserKubeScheduler         = model.UserKubeScheduler
	GroupSystemMasters        = model.GroupSystemMasters
	GroupNodes                = model.GroupNodes
	GroupAuthenticated        = model.GroupAuthenticated
	GroupUnauthenticated      = model.GroupUnauthenticated
	GroupServiceAccounts      = model.GroupServiceAccounts
	// NodeUserPrefix prefixes a kubelet's user name (system:node:<node>).
	NodeUserPrefix = "system:node:"
	// ServiceAccountUserPrefix prefixes a service account's user name
	// (system:serviceaccount:<namespace>:<name>).
	ServiceAccountUserPrefix = "system:serviceaccount:"
)

// UserInfo is the identity a request is authenticated as (authentication's user.Info, reduced
// to what API Priority and Fairness matches on).
type UserInfo struct {
	Name   string
	Groups []string
}

// ServiceAccountUser returns the identity of service account namespace/name as the token
// authenticator gives it: the user system:serviceaccount:<ns>:<name> in the groups
// system:serviceaccounts, system:serviceaccounts:<ns> and system:authenticated
// ([apiserver@HEAD] pkg/authentication/serviceaccount/util.go UserInfo, MakeGroupNames).
func ServiceAccountUser(namespace, name string) UserInfo {
	return UserInfo{Name: ServiceAccountUserPrefix + namespace + ":" + name,
		Groups: []string{GroupServiceAccounts, GroupServiceAccounts + ":" + namespace, GroupAuthenticated}}
}

// NodeUser returns a kubelet's identity: system:node:<node> in system:nodes (the node
// authorizer's convention, [k8s] plugin/pkg/auth/authorizer/node).
func NodeUser(node string) UserInfo {
	return UserInfo{Name: NodeUserPrefix + node, Groups: []string{GroupNodes, GroupAuthenticated}}
}

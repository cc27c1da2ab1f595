package cronjob

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reconsim/reconsim/model"
	"github.com/reconsim/reconsim/vtime"
)

// mostRecentScheduleTime cases after upstream utils_test.go TestMostRecentScheduleTime: none
// due, one due, several missed (the latest wins), too many, the deadline window, a time zone.
func TestMostRecentScheduleTime(t *testing.T) {
	at := func(h, m, s int) time.Time {
		return epoch.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second)
	}
	cases := []struct {
		name     string
		schedule string
		tz       string
		last     *vtime.Time
		sds      *int64
		now      time.Time
		want     string // "" for none
		missed   missed
	}{
		{"not yet", "*/5 * * * *", "", nil, nil, at(0, 4, 59), "", noneMissed},
		{"first due", "*/5 * * * *", "", nil, nil, at(0, 5, 0), "00:05", fewMissed},
		{"three missed, latest wins", "*/5 * * * *", "", nil, nil, at(0, 17, 0), "00:15", fewMissed},
		{"after the last schedule", "*/5 * * * *", "", model.Ptr(vtime.Time(15 * time.Minute)), nil, at(0, 19, 0), "", noneMissed},
		{"many missed", "* * * * *", "", nil, nil, at(2, 0, 30), "02:00", manyMissed},
		{"deadline window hides old times", "* * * * *", "", nil, model.Ptr(int64(30)), at(0, 10, 45), "", noneMissed},
		{"deadline window keeps a recent one", "* * * * *", "", nil, model.Ptr(int64(30)), at(0, 10, 20), "00:10", fewMissed},
		{"hourly in a zone an hour ahead", "0 * * * *", "Europe/Paris", nil, nil, at(1, 30, 0), "01:00", fewMissed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cj := &model.CronJob{}
			cj.Spec.Schedule = c.schedule
			if c.tz != "" {
				cj.Spec.TimeZone = &c.tz
			}
			cj.Status.LastScheduleTime = c.last
			cj.Spec.StartingDeadlineSeconds = c.sds
			sched, err := parseSchedule(cj)
			require.NoError(t, err)
			_, got, m, err := mostRecentScheduleTime(cj, c.now, sched, true)
			require.NoError(t, err)
			if c.want == "" {
				assert.Nil(t, got)
			} else {
				require.NotNil(t, got)
				assert.Equal(t, c.want, got.UTC().Format("15:04"))
			}
			assert.Equal(t, c.missed, m)
		})
	}
}

func TestNextScheduleTimeDurationAndNames(t *testing.T) {
	cj := &model.CronJob{}
	cj.Name = "backup"
	cj.Spec.Schedule = "*/5 * * * *"
	sched, err := parseSchedule(cj)
	require.NoError(t, err)
	assert.Equal(t, 2*time.Minute+100*time.Millisecond, nextScheduleTimeDuration(cj, epoch.Add(3*time.Minute), sched))
	assert.Equal(t, "backup-29453765", getJobName(cj, epoch.Add(5*time.Minute)))
	j := getJobFromTemplate2(cj, epoch.Add(5*time.Minute))
	assert.Equal(t, "2026-01-01T00:05:00Z", j.Annotations[model.CronJobScheduledTimestamp])
}

package rest

// AnswerCacheCounts reports the answer cache's hits and misses (0, 0 when
// the server keeps none).
func AnswerCacheCounts(s *Server) (hits, misses int64) {
	if s.dp == nil || s.dp.answers == nil {
		return 0, 0
	}
	return s.dp.answers.hits.Load(), s.dp.answers.misses.Load()
}

"""Item statistics: how each question fared in exams and in practice, for authors."""

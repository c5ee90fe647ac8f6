C     SPDX-License-Identifier: BSD-3-Clause
C     MPI_REAL on the last rank, MPI_DOUBLE_PRECISION elsewhere: the
C     classic Fortran mistake libmpe_collchk must catch.
      PROGRAM CCREAL
      INCLUDE 'mpif.h'
      INTEGER IERR, ME, NP
      DOUBLE PRECISION X(2), Y(2)
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, ME, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      X(1) = ME
      X(2) = 0
      IF (ME .EQ. NP - 1) THEN
         CALL MPI_ALLREDUCE(X, Y, 1, MPI_REAL, MPI_SUM,
     &                      MPI_COMM_WORLD, IERR)
      ELSE
         CALL MPI_ALLREDUCE(X, Y, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &                      MPI_COMM_WORLD, IERR)
      END IF
      IF (ME .EQ. 0) PRINT *, 'not caught'
      CALL MPI_FINALIZE(IERR)
      END
